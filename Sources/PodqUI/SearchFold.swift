import FoundationEssentials
import Glibc
import PodqBase

/// How the TUI's filter and search compare text: case and accents ignored, as the show notes' FTS5
/// index does (`remove_diacritics 2`). "ist" finds "İstanbul" (lower-casing alone gives "i̇stanbul",
/// an i with a combining dot), "ete" finds "Été", "strasse" finds "Straße", "sofia" finds "ΣΟΦΊΑ".
public enum SearchFold {
    /// `text` as search compares it: ``TextFold`` (ASCII is only lower-cased, the common case).
    public static func fold(_ text: String) -> String { TextFold.fold(text) }
}
