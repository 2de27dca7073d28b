import Foundation

/// How the TUI's filter and search compare text: case and accents ignored, as the show notes' FTS5
/// index does (`remove_diacritics 2`). "ist" finds "İstanbul" (lower-casing alone gives "i̇stanbul",
/// an i with a combining dot), "ete" finds "Été", "strasse" finds "Straße", "sofia" finds "ΣΟΦΊΑ".
public enum SearchFold {
    /// `text` as search compares it. ASCII is only lower-cased (the common case, and fast); the rest
    /// goes through Foundation's case and diacritic folding (about 1.5 µs a title).
    public static func fold(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        return text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
}
