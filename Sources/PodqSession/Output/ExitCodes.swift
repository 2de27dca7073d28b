import PodqCore
import PodqHTTP

/// podq's exit codes, and the one table from an error to its code. ``table`` says when each is used:
/// docs/COMMANDS.md and the man page's EXIT STATUS are generated from it; CLI tests check each one.
public enum ExitCodes {
    /// Every download it ran completed.
    public static let success: Int32 = 0
    /// A download, a feed or the player failed.
    public static let failure: Int32 = 1
    /// Bad usage or input.
    public static let usage: Int32 = 2
    /// Another podq holds the queue.
    public static let locked: Int32 = 3
    /// The config file is invalid.
    public static let config: Int32 = 4
    /// The queue database cannot be used.
    public static let store: Int32 = 5
    /// Stopped by SIGINT, SIGTERM or SIGHUP, partial files kept.
    public static let interrupted: Int32 = 130
    /// The output was closed under podq (`podq episodes | head`), as SIGPIPE would end it.
    public static let brokenPipe: Int32 = 141

    /// Every code above, in order, with when podq exits with it: docs/COMMANDS.md's table is generated
    /// from this (`make docs`, checked by DocsTests), and ``summary`` is checked against it. A new code goes here too.
    package static let table: [(code: Int32, when: String)] = [
        (success, "everything asked for was done"),
        (failure, "a download, a feed or the player failed (each with its reason), the disk being full included"),
        (usage, "bad usage or input: an unknown command or option, a bad URL, no such id, a state that does not allow the change, a file that is not a feed"),
        (locked, "another podq runs the queue (it is named)"),
        (config, "the config file cannot be read or is invalid (its file, line and key are named)"),
        (store, "the queue database cannot be used: damaged, not podq's, from a newer podq, unwritable, or a row in a state this podq does not know"),
        (
            interrupted,
            "SIGINT, SIGTERM or SIGHUP (a closed terminal; `nohup` still works), or the TUI's terminal hung up, for every command from its first instant (opening the store, waiting for another program's lock): the queue and every partial file are kept"
        ),
        (brokenPipe, "the output was closed under podq (`podq episodes | head`), as SIGPIPE ends other tools; the queue and partial files are kept"),
    ]

    /// Every code, in order.
    package static var all: [Int32] { table.map(\.code) }

    /// The code a command exits with when it fails with `error`: the one table. Nil for errors that
    /// are not podq's own (swift-argument-parser's usage errors, help and version requests).
    package static func code(for error: any Error) -> Int32? {
        switch error {
        case let error as CommandError: error.code
        case is ConfigError: config
        case let error as StoreError: error.isAboutTheDatabase ? store : usage
        case let error as FeedError:
            if case .fetch(let cause, _) = error { cause.isBadInput ? usage : failure } else { usage }
        case let error as DownloadError: error.isBadInput ? usage : failure
        case let error as PlayerError: error.isBadInput ? usage : failure
        case let error as SyncError: error.isBadInput ? usage : failure
        case is CancellationError: interrupted
        default: nil
        }
    }

    /// The table as the man page and `podq --help` show it.
    package static let summary = """
        Exit codes: 0 success; 1 a download, a feed or the player failed (a full disk included); 2 bad usage \
        or input; 3 another podq runs the queue; 4 the config file is invalid; 5 the queue database cannot be \
        used; 130 interrupted by SIGINT, SIGTERM or SIGHUP (the queue and every partial file are kept); 141 the output was \
        closed (podq episodes | head).
        """
}

extension DownloadError {
    /// True for what is wrong with the input itself (a URL, a name that leaves the folder), found
    /// before anything is fetched.
    package var isBadInput: Bool {
        switch self {
        case .invalidURL, .unsupportedScheme, .outsideDownloadFolder: true
        default: false
        }
    }
}

extension PlayerError {
    /// True for an id that names nothing playable (no such download, not completed): the input.
    package var isBadInput: Bool {
        switch self {
        case .noSuchDownload, .notCompleted, .cannotStartAt, .noChapter, .notDownloaded: true
        case .noPlayer, .notFound, .fileMissing, .failed: false
        }
    }
}

extension StoreError {
    /// True when the database itself is the problem (damaged, foreign, newer, unwritable), not the
    /// input (an id that does not exist, a change the state does not allow).
    package var isAboutTheDatabase: Bool {
        switch self {
        case .cannotOpen, .notOwnFile, .corrupt, .foreign, .newerVersion, .database, .unknownState, .locked: true
        case .noSuchDownload, .noSuchPodcast, .noSuchEpisode, .podcastExists, .cannotChange: false
        }
    }
}
