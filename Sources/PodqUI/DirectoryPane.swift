import FoundationEssentials
import Glibc
import PodqBase
import PodqCore

/// The results of a directory search the TUI shows (`a`, then words): the list of shows, which is
/// selected, and whether the selected show's description is open. Filled by the session's search
/// (``TUIEvent/directory(_:)``); the keys move in it (``TUIController``).
public struct DirectoryPane: Sendable, Equatable {
    /// What was searched for.
    public var words: String
    /// The search has not answered yet.
    public var loading = true
    public var shows: [DirectoryShow] = []
    /// The directories that answered, by name ("iTunes, gpodder.net").
    public var answered = ""
    /// What failed, beside the results (one directory down), or why there are none (all down).
    public var note: String?
    /// Every directory failed: ``note`` says why.
    public var failed = false
    public var selected = 0
    public var scroll = 0
    /// The selected show's description is open (`i`).
    public var showingAbout = false
    public var aboutScroll = 0

    public init(words: String) { self.words = words }

    /// A finished search, as the session hands it to the TUI.
    public struct Answer: Sendable, Equatable {
        public var words: String
        public var shows: [DirectoryShow]
        public var answered: String
        public var note: String?
        public var failed: Bool
        public init(words: String, shows: [DirectoryShow], answered: String, note: String?, failed: Bool) {
            self.words = words
            self.shows = shows
            self.answered = answered
            self.note = note
            self.failed = failed
        }
    }

    /// Takes `answer` when it is this search's.
    public mutating func receive(_ answer: Answer) {
        guard answer.words == words, loading else { return }
        loading = false
        shows = answer.shows
        answered = answer.answered
        note = answer.note
        failed = answer.failed
        selected = 0
        scroll = 0
    }

    /// The selected show, if any.
    public var selectedShow: DirectoryShow? { shows.indices.contains(selected) ? shows[selected] : nil }

    /// Words a person typed at `a` rather than an address: a space, or no `.`, `/`, `:` or `~` at all
    /// (`radiolab`); `example.org/feed`, `feed.xml`, `~/feeds/show.xml` are addresses or files.
    public static func isWords(_ text: String) -> Bool {
        let trimmed = text.trimmingSpaces
        guard !trimmed.isEmpty, !trimmed.contains("://"), !trimmed.contains("/"), !trimmed.hasPrefix("~") else { return false }
        return trimmed.contains(" ") || !trimmed.contains(where: { $0 == "." || $0 == ":" })
    }
}
