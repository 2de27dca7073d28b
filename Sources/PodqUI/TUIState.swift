import PodqBase
import PodqCore

/// The TUI's own state (not the queue's): the view, the selection, the filter, what is being typed,
/// and the last message. Keys change it through ``TUIController``; the renderer reads it.
public struct TUIState: Sendable, Equatable {
    /// What the keyboard is doing now.
    public enum Mode: Sendable, Equatable {
        case normal
        /// Typing a filter (`f`): applied as it is typed.
        case filtering
        /// Typing a search (`/`): the selection jumps to the first match as it is typed; Esc goes back
        /// to `origin`.
        case searching(origin: Int64?)
        /// Typing a feed URL or words to search the directories for (`a`).
        case addingFeed(String)
        /// A directory search's results (``TUIState/directory``).
        case directory
        /// Waiting for an answer to a question.
        case confirming(Confirmation)
        /// The help overlay (`?`).
        case help
        /// The detail pane of the selected row (`i`): ``TUIState/detail``.
        case detail
        /// Asking how many of the podcasts' latest episodes to queue (`Q`): empty for every new one.
        case queueingFrom(podcasts: [Int64], title: String, count: String)
        /// The Transcript pane (``TUIState/transcript``): an episode's transcript, or a search's hits.
        case transcript
        /// Typing the words to find in every transcript (`T`).
        case askingTranscriptWords(String)
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
    /// Something the whole queue is waiting on (a full disk), shown on the message line until it ends.
    public var notice: String?
    public var quit = false
    /// The quit came from a signal or the terminal hanging up (exit code 130), not from `q`.
    public var quitBySignal = false
    /// What the detail pane shows, and the first of its lines on screen.
    public var detail: Detail?
    public var detailScroll = 0
    /// The first line of the help (`?`) shown: it scrolls where the screen is too small for every key.
    public var helpScroll = 0
    /// The detail pane's lines as last laid out: made again only for another detail or width (a
    /// megabyte of show notes is wrapped once, not on every frame).
    public var detailLayout: DetailLayout?

    /// A detail's lines at one width.
    public struct DetailLayout: Sendable, Equatable {
        public var detail: Detail
        public var width: Int
        public var lines: [String]
        public var styles: [CellStyle]
    }
    /// The Transcript pane shown (`t`, `T`), kept while its mode is on.
    public var transcript: TranscriptPane?
    /// The search's hits a hit's transcript was opened from (`t` on a hit): Esc goes back to them.
    public var transcriptBack: TranscriptPane?
    /// The directory search shown (`a`, then words), kept while its mode is on.
    public var directory: DirectoryPane?
    /// The marked rows of each view (`v`, `*`): keys that act on a row act on all of them.
    public var marked: [TUIView: Set<Int64>] = [:]
    /// The search of each view (`/`; `n` and `N` go to the next and previous match).
    public var search: [TUIView: String] = [:]
    /// The episodes whose show notes match the Episodes view's search (from the background).
    public var notesMatches: NotesMatches?
    /// The state each view shows only (`F` goes through them); nil: every state.
    public var stateFilter: [TUIView: StateFilter] = [:]

    /// Rows of one state: episodes new (never queued, not played), in the queue (queued, running or
    /// paused), downloaded, failed or played; downloads running, queued, paused, failed or completed.
    public enum StateFilter: String, Sendable, CaseIterable {
        case new, inQueue = "in the queue", downloaded, failed, played, running, queued, paused, completed

        /// The filters `F` goes through in `view`, in order (then back to none).
        public static func filters(for view: TUIView) -> [StateFilter] {
            switch view {
            case .episodes: [.new, .inQueue, .downloaded, .failed, .played]
            case .downloads: [.running, .queued, .paused, .failed, .completed]
            case .podcasts: []
            }
        }

        /// True when an episode in `state` (``TUISnapshot/episodeState(_:)``) passes.
        func passes(episodeState state: EpisodeState) -> Bool {
            switch self {
            case .new: state == .new
            case .inQueue: state == .queued || state == .downloading || state == .paused
            case .downloaded: state == .completed
            case .failed: state == .failed
            case .played: state == .played
            default: false
            }
        }

        /// True when a download in `state` passes.
        func passes(_ state: DownloadState) -> Bool {
            switch (self, state) {
            case (.running, .downloading), (.queued, .queued), (.paused, .paused), (.failed, .failed), (.completed, .completed): true
            default: false
            }
        }
    }

    /// How each view is sorted (`s` the next order, `S` the other way round); nil: its first order.
    public var sort: [TUIView: Sort] = [:]

    /// A view's order.
    public struct Sort: Sendable, Equatable {
        public var key: SortKey
        public var reversed: Bool
        public init(_ key: SortKey, reversed: Bool = false) {
            self.key = key
            self.reversed = reversed
        }
    }

    /// What rows can be sorted by.
    public enum SortKey: String, Sendable, CaseIterable {
        /// Downloads: the queue's order; Podcasts: by title (their first orders).
        case queue, date, title, podcast, duration, size, state, progress, refreshed

        /// Each view's orders, its first one first.
        public static func keys(for view: TUIView) -> [SortKey] {
            switch view {
            case .downloads: [.queue, .state, .progress, .title]
            case .episodes: [.date, .title, .podcast, .duration, .size]
            case .podcasts: [.title, .refreshed, .size]
            }
        }
    }

    /// The order `view` is sorted by now.
    public func order(_ view: TUIView) -> Sort { sort[view] ?? Sort(SortKey.keys(for: view)[0]) }

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

    /// The ids of `view`'s rows as shown: filtered and sorted.
    public func visibleIDs(_ view: TUIView, in snapshot: TUISnapshot) -> [Int64] {
        let filter = self.filter[view] ?? ""
        let needle = SearchFold.fold(filter)
        let order = order(view)
        func keep(_ text: String) -> Bool { needle.isEmpty || SearchFold.fold(text).contains(needle) }
        switch view {
        case .downloads:
            let only = stateFilter[.downloads]
            var rows = snapshot.downloads.filter { keep($0.title) && (only?.passes($0.state) ?? true) }
            switch order.key {
            case .state: rows = Self.stableSorted(rows) { Self.rank($0.state) < Self.rank($1.state) }
            case .progress: rows = Self.stableSorted(rows) { ($0.fraction ?? -1) > ($1.fraction ?? -1) }
            case .title: rows = TextOrder.sorted(rows) { $0.title }
            default: break
            }
            let ids = rows.map { Int64($0.id) }
            return order.reversed ? ids.reversed() : ids
        case .episodes:
            let key = EpisodeLibrary.Order(rawValue: order.key.rawValue) ?? .date
            let only = stateFilter[.episodes]
            if let cache = snapshot.rowLists {
                guard let only else {
                    return cache.episodeIDs(snapshot.library, podcast: episodesOf?.id, needle: filter, order: key, reversed: order.reversed)
                }
                return cache.episodeIDs(
                    snapshot.library, podcast: episodesOf?.id, needle: filter, order: key, reversed: order.reversed,
                    filter: only, statesVersion: snapshot.statesVersion
                ) { only.passes(episodeState: snapshot.episodeState($0)) }
            }
            let library = snapshot.library
            let positions = library.sorted(library.positions(podcast: episodesOf?.id, matching: filter), by: key, reversed: order.reversed)
            let ids = positions.map { library.id(at: Int($0)) }
            guard let only else { return ids }
            return ids.filter { only.passes(episodeState: snapshot.episodeState($0)) }
        case .podcasts:
            var rows = snapshot.podcasts.filter { keep($0.title) }
            switch order.key {
            case .refreshed: rows = Self.stableSorted(rows) { ($0.lastRefresh ?? 0) > ($1.lastRefresh ?? 0) }
            case .size: rows = Self.stableSorted(rows) { $0.episodes > $1.episodes }
            default: break
            }
            let ids = rows.map(\.id)
            return order.reversed ? ids.reversed() : ids
        }
    }

    /// Sorts keeping the order of equal rows.
    static func stableSorted<T>(_ rows: [T], by less: (T, T) -> Bool) -> [T] {
        rows.enumerated().sorted { less($0.element, $1.element) || (!less($1.element, $0.element) && $0.offset < $1.offset) }.map(\.element)
    }

    /// Downloads by state: the ones that need a look first.
    static func rank(_ state: DownloadState) -> Int {
        switch state {
        case .downloading: 0
        case .failed: 1
        case .queued: 2
        case .paused: 3
        case .completed: 4
        case .cancelled: 5
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
