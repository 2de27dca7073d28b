import PodqCore

/// The TUI's own state (not the queue's): the view, the selection, the filter, what is being typed,
/// and the last message. Keys change it through ``TUIController``; the renderer reads it.
public struct TUIState: Sendable, Equatable {
    /// What the keyboard is doing now.
    public enum Mode: Sendable, Equatable {
        case normal
        /// Typing a filter (`/`): applied as it is typed.
        case filtering
        /// Typing a feed URL (`a`).
        case addingFeed(String)
        /// Waiting for an answer to a question.
        case confirming(Confirmation)
        /// The help overlay (`?`).
        case help
        /// The detail pane of the selected row (`i`): ``TUIState/detail``.
        case detail
    }

    /// A question the user answers with a key.
    public enum Confirmation: Sendable, Equatable {
        /// Removing a completed download: `y` deletes the file too, `k` keeps it.
        case removeCompleted(id: Int64, title: String)
        /// Unsubscribing: `y`.
        case removePodcast(id: Int64, title: String)
        /// Cancelling marked downloads (their partial files are deleted): `y`.
        case cancelMarked(ids: [Int64])
        /// Removing marked rows: `y` deletes completed files too, `k` keeps them.
        case removeMarked(ids: [Int64])
    }

    /// A line for the message line; errors are drawn in the failure style.
    public struct Message: Sendable, Equatable {
        public var text: String
        public var isError: Bool
        public init(_ text: String, isError: Bool = false) {
            self.text = text
            self.isError = isError
        }
    }

    public var view: TUIView = .downloads
    /// The letters of the actions (the config's `key-<action>` lines).
    public var keys = KeyBindings()
    public var mode: Mode = .normal
    /// The selected row of each view, by id, so it stays on the same download as rows come and go.
    public var selectedID: [TUIView: Int64] = [:]
    /// The selected index, used when the selected id is gone.
    public var selectedIndex: [TUIView: Int] = [:]
    /// The first row shown of each view.
    public var scroll: [TUIView: Int] = [:]
    /// The text filter of each view (case-insensitive, on titles).
    public var filter: [TUIView: String] = [:]
    /// Episodes of one podcast only (Enter on a podcast); nil for all.
    public var episodesOf: PodcastScope?
    public var message: Message?
    public var quit = false
    /// What the detail pane shows, and the first of its lines on screen.
    public var detail: Detail?
    public var detailScroll = 0
    /// The marked rows of each view (`v`, `*`): keys that act on a row act on all of them.
    public var marked: [TUIView: Set<Int64>] = [:]

    /// One podcast, by id, with its title for the tab.
    public struct PodcastScope: Sendable, Equatable {
        public var id: Int64
        public var title: String
        public init(id: Int64, title: String) {
            self.id = id
            self.title = title
        }
    }

    public init() {}

    /// The ids of `view`'s rows as shown: filtered, in order.
    public func visibleIDs(_ view: TUIView, in snapshot: TUISnapshot) -> [Int64] {
        let filter = self.filter[view] ?? ""
        let needle = filter.lowercased()
        func keep(_ text: String) -> Bool { needle.isEmpty || text.lowercased().contains(needle) }
        switch view {
        case .downloads:
            return snapshot.downloads.lazy.filter { keep($0.title) }.map { Int64($0.id) }
        case .episodes:
            if let cache = snapshot.rowLists { return cache.episodeIDs(snapshot.library, podcast: episodesOf?.id, needle: filter) }
            let library = snapshot.library
            return library.positions(podcast: episodesOf?.id, matching: filter).map { library.id(at: Int($0)) }
        case .podcasts:
            return snapshot.podcasts.lazy.filter { keep($0.title) }.map(\.id)
        }
    }

    /// The marked rows of `view` that are still shown, in the order shown.
    public func markedIDs(_ view: TUIView, in snapshot: TUISnapshot) -> [Int64] {
        guard let marks = marked[view], !marks.isEmpty else { return [] }
        return visibleIDs(view, in: snapshot).filter { marks.contains($0) }
    }

    /// The index of the selected row among `ids` (nil when there are none).
    public func selection(_ view: TUIView, ids: [Int64]) -> Int? {
        guard !ids.isEmpty else { return nil }
        if let id = selectedID[view], let index = ids.firstIndex(of: id) { return index }
        return min(max(0, selectedIndex[view] ?? 0), ids.count - 1)
    }

    /// Selects row `index` of `ids` (clamped).
    public mutating func select(_ index: Int, in view: TUIView, ids: [Int64]) {
        guard !ids.isEmpty else { return }
        let clamped = min(max(0, index), ids.count - 1)
        selectedIndex[view] = clamped
        selectedID[view] = ids[clamped]
    }

    /// Keeps the selection inside the `rows` lines shown and returns the first row to show.
    public mutating func scrollOffset(_ view: TUIView, ids: [Int64], rows: Int) -> Int {
        guard rows > 0, let index = selection(view, ids: ids) else { return 0 }
        var top = scroll[view] ?? 0
        if index < top { top = index }
        if index >= top + rows { top = index - rows + 1 }
        top = max(0, min(top, max(0, ids.count - rows)))
        scroll[view] = top
        return top
    }
}
