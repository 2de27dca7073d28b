/// The TUI's remappable keys: each action's letter, changed in the config with `key-<action> = <char>`.
///
/// Arrows, Enter, Tab, Esc and Space always work; the letters can move. A remapped action's old
/// letter does nothing unless another action takes it, so `key-cancel = x` with `key-remove = c`
/// swaps the two.
public struct KeyBindings: Sendable, Equatable {
    /// What a key does.
    public enum Action: String, CaseIterable, Sendable {
        case up, down, top, bottom
        case downloads, episodes, podcasts
        case open, cancel, pause, retry, remove, play
        case moveUp = "move-up", moveDown = "move-down"
        case moreJobs = "more-jobs", fewerJobs = "fewer-jobs", slower, faster
        case pauseAll = "pause-all", addFeed = "add-feed", refresh, filter, help, quit
        case detail, mark, markAll = "mark-all", search, next, previous, sort, sortReverse = "sort-reverse"
        case morePerHost = "more-per-host", fewerPerHost = "fewer-per-host"
        case retryFailed = "retry-failed", clearCompleted = "clear-completed", queueNew = "queue-new", played
        case stateFilter = "state-filter"
        case sync
        case transcript, searchTranscripts = "search-transcripts"
    }

    /// Every action's key when the config does not change it.
    public static let defaults: [Action: Character] = [
        .up: "k", .down: "j", .top: "g", .bottom: "G", .downloads: "1", .episodes: "2", .podcasts: "3",
        .open: "d", .cancel: "c", .pause: "p", .retry: "r", .remove: "x", .play: "o", .moveUp: "K", .moveDown: "J",
        .moreJobs: "+", .fewerJobs: "-", .slower: "<", .faster: ">", .pauseAll: "P", .addFeed: "a", .refresh: "u",
        .filter: "f", .help: "?", .quit: "q", .detail: "i", .mark: "v", .markAll: "*", .search: "/", .next: "n", .previous: "N",
        .sort: "s", .sortReverse: "S", .morePerHost: "]", .fewerPerHost: "[",
        .retryFailed: "R", .clearCompleted: "C", .queueNew: "Q", .played: "m", .stateFilter: "F", .sync: "y",
        .transcript: "t", .searchTranscripts: "T",
    ]

    /// The config's changes.
    public private(set) var custom: [Action: Character] = [:]

    public init() {}

    /// The key of `action` now; `·` for an action whose default letter the config gave to another
    /// action (it has no letter until the config gives it one).
    public func key(_ action: Action) -> Character {
        if let bound = custom[action] { return bound }
        return isDisplaced(action) ? "·" : Self.defaults[action]!
    }

    /// True when the config gave `action`'s default letter to another action and none to `action`.
    /// A letter the config names wins over a default, so a new default never breaks a config.
    public func isDisplaced(_ action: Action) -> Bool {
        custom[action] == nil && custom.values.contains(Self.defaults[action]!)
    }

    /// Binds `action` to `character`.
    public mutating func bind(_ action: Action, to character: Character) { custom[action] = character }

    /// Two actions the config put on one key, if there are: the first pair found, in the order of
    /// ``Action``. (A letter the config names takes it from an action that only had it by default.)
    public func conflict() -> (Action, Action, Character)? {
        var seen: [Character: Action] = [:]
        for action in Action.allCases {
            guard let k = custom[action] else { continue }
            if let other = seen[k] { return (other, action, k) }
            seen[k] = action
        }
        return nil
    }

    /// True for a character a binding may use: one visible ASCII character.
    public static func isBindable(_ text: String) -> Bool {
        guard text.count == 1, let scalar = text.unicodeScalars.first else { return false }
        return scalar.value > 0x20 && scalar.value < 0x7F
    }
}
