import FoundationEssentials
import Glibc
import PodqBase

/// Failures of the queue database, each naming the file and what to do.
public enum StoreError: Error, LocalizedError, Sendable, Equatable {
    /// The file could not be opened or created.
    case cannotOpen(path: String, reason: String)
    /// A file podq writes in its home is a link, a FIFO or another non-file (``OwnFile``).
    case notOwnFile(path: String, reason: String)
    /// The file is not an SQLite database (or is damaged beyond reading).
    case corrupt(path: String, reason: String)
    /// An SQLite database that is not podq's.
    case foreign(path: String)
    /// Made by a newer podq, with a schema this one does not know.
    case newerVersion(path: String)
    /// Another program held the database's write lock longer than podq waits (``LockWait/patience``).
    case locked(path: String, seconds: Double)
    /// Any other database failure.
    case database(String)
    /// No download has that id.
    case noSuchDownload(Int64)
    /// No subscription matches.
    case noSuchPodcast(String)
    /// No episode has that id.
    case noSuchEpisode(Int64)
    /// The feed is already subscribed.
    case podcastExists(id: Int64, title: String)
    /// The download's state does not allow the change (`action` is a past participle: `paused`).
    case cannotChange(id: Int64, state: String, action: String)
    /// A row's stored state is not one this podq knows.
    case unknownState(id: Int64, value: String)

    public var errorDescription: String? {
        switch self {
        case .notOwnFile(let path, let reason):
            "podq does not write \(path): \(reason). Nothing was changed."
        case .cannotOpen(let path, let reason):
            "Cannot open the queue database \(path): \(reason). Check that the folder exists and is writable, or set --home / PODQ_HOME."
        case .corrupt(let path, let reason):
            "The queue database \(path) is damaged (\(reason)). podq has not changed it. Move it aside (mv '\(path)' '\(path).bad') to start an empty queue; your downloaded files are not affected."
        case .foreign(path: let path):
            "\(path) is an SQLite database that podq did not create; podq will not touch it. Use another --home, or move the file aside."
        case .newerVersion(let path):
            "The queue database \(path) was written by a newer podq. Update podq, or use another --home."
        case .locked(let path, let seconds):
            "Another program has held the queue database \(path) locked for \(seconds < 120 ? "\(Int(seconds.rounded())) seconds" : "more than \(Int(seconds / 60)) minutes"); podq could not save its changes. Find it with `fuser \(path)` (a backup tool, sqlite3), let it finish, then run podq again: the partial files are kept."
        case .database(let reason):
            "Queue database error: \(reason)."
        case .noSuchDownload(let id):
            "There is no download \(ItemKind.download.label(id)); `podq queue` lists them."
        case .noSuchPodcast(let query):
            "No subscription matches '\(SafeText.clean(query))'; `podq feeds` lists them (give its id as p3, its title or its feed URL)."
        case .noSuchEpisode(let id):
            "There is no episode \(ItemKind.episode.label(id)); `podq episodes` lists them."
        case .podcastExists(let id, let title):
            "You are already subscribed to this feed: \(ItemKind.podcast.label(id)) \(title)."
        case .cannotChange(let id, let state, let action):
            "\(ItemKind.download.label(id)) is \(state); it cannot be \(action)."
        case .unknownState(let id, let value):
            "Download \(ItemKind.download.label(id)) is stored with the state '\(SafeText.clean(value))', which this podq does not know: the queue was "
                + "written by a newer podq or by hand. Update podq, or use another --home."
        }
    }
}
