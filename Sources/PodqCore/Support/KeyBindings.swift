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
        case retryFailed = "retry-failed", clearCompleted = "clear-completed", queueNew = "queue-new"
    }

    /// Every action's key when the config does not change it.
    public static let defaults: [Action: Character] = [
        .up: "k", .down: "j", .top: "g", .bottom: "G", .downloads: "1", .episodes: "2", .podcasts: "3",
        .open: "d", .cancel: "c", .pause: "p", .retry: "r", .remove: "x", .play: "o", .moveUp: "K", .moveDown: "J",
        .moreJobs: "+", .fewerJobs: "-", .slower: "<", .faster: ">", .pauseAll: "P", .addFeed: "a", .refresh: "u",
        .filter: "f", .help: "?", .quit: "q", .detail: "i", .mark: "v", .markAll: "*", .search: "/", .next: "n", .previous: "N",
        .sort: "s", .sortReverse: "S", .morePerHost: "]", .fewerPerHost: "[",
        .retryFailed: "R", .clearCompleted: "C", .queueNew: "Q",
    ]

    /// The config's changes.
    public private(set) var custom: [Action: Character] = [:]

    public init() {}

    /// The key of `action` now.
    public func key(_ action: Action) -> Character { custom[action] ?? Self.defaults[action]! }

    /// What a pressed character stands for: the default key of the action it is bound to, nil when
    /// it is a default key whose action moved, or the character itself when no action uses it.
    public func canonical(_ pressed: Character) -> Character? {
        if custom.isEmpty { return pressed }
        if let action = Action.allCases.first(where: { key($0) == pressed }) { return Self.defaults[action]! }
        return Self.defaults.values.contains(pressed) ? nil : pressed
    }

    /// Binds `action` to `character`.
    public mutating func bind(_ action: Action, to character: Character) { custom[action] = character }

    /// Two actions on one key, if there are: the first pair found, in the order of ``Action``.
    public func conflict() -> (Action, Action, Character)? {
        var seen: [Character: Action] = [:]
        for action in Action.allCases {
            let k = key(action)
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
