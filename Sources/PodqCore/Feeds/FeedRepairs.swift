/// What podq mended to read a feed, so that a sloppy feed keeps every episode and the user still
/// hears that it was sloppy (`podq add`/`refresh`, the Podcasts view, `feeds --json`, the log).
public struct FeedRepairs: Sendable, Equatable {
    /// Byte sequences that were not UTF-8, read as U+FFFD.
    public var invalidBytes: Int
    /// Control characters XML forbids (raw, or as references such as `&#x7;`), dropped.
    public var controlCharacters: Int
    /// HTML entities XML does not define (`&eacute;`, `&nbsp;`), read as their characters, and bare `&`s read as text.
    public var entities: Int
    /// HTML void elements left open (`<br>`, `<img …>` in a description outside CDATA), closed.
    public var openTags: Int
    /// Errors libxml2's recovery passed over (unclosed or mismatched tags…), when repair was not enough.
    public var recoveredErrors: Int
    /// The first of those errors, with its line and column.
    public var firstRecoveredError: String?
    /// Enclosures whose URL is not http(s) (`file:`, a bare path): dropped, never downloaded.
    public var droppedEnclosures: Int

    public init(
        invalidBytes: Int = 0, controlCharacters: Int = 0, entities: Int = 0, openTags: Int = 0, recoveredErrors: Int = 0,
        firstRecoveredError: String? = nil, droppedEnclosures: Int = 0
    ) {
        self.invalidBytes = invalidBytes
        self.controlCharacters = controlCharacters
        self.entities = entities
        self.openTags = openTags
        self.recoveredErrors = recoveredErrors
        self.firstRecoveredError = firstRecoveredError
        self.droppedEnclosures = droppedEnclosures
    }

    /// True when nothing was mended or dropped.
    public var isEmpty: Bool { self == FeedRepairs() }

    /// One line for people, such as "repaired 2 control characters and 1 HTML entity"; "" when empty.
    public var summary: String {
        var parts: [String] = []
        func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
        if invalidBytes > 0 { parts.append(count(invalidBytes, "byte that was not UTF-8", "bytes that were not UTF-8")) }
        if controlCharacters > 0 { parts.append(count(controlCharacters, "control character", "control characters")) }
        if entities > 0 { parts.append(count(entities, "HTML entity or bare &", "HTML entities or bare &s")) }
        if openTags > 0 { parts.append(count(openTags, "HTML tag left open", "HTML tags left open")) }
        var text = parts.isEmpty ? "" : "repaired " + parts.joined(separator: ", ")
        if recoveredErrors > 0 {
            let first = firstRecoveredError.map { " (first: \($0))" } ?? ""
            text += (text.isEmpty ? "" : "; ") + "read past " + count(recoveredErrors, "XML error", "XML errors") + first
        }
        if droppedEnclosures > 0 {
            text += (text.isEmpty ? "" : "; ") + "dropped " + count(droppedEnclosures, "enclosure that is", "enclosures that are") + " not http(s)"
        }
        return text
    }

    /// Adds the counts of `other` (a repaired page of the same feed, a repaired copy).
    public mutating func add(_ other: FeedRepairs) {
        invalidBytes += other.invalidBytes
        controlCharacters += other.controlCharacters
        entities += other.entities
        openTags += other.openTags
        recoveredErrors += other.recoveredErrors
        firstRecoveredError = firstRecoveredError ?? other.firstRecoveredError
        droppedEnclosures += other.droppedEnclosures
    }
}
