import Foundation

/// Failures of the queue database, each naming the file and what to do.
public enum StoreError: Error, LocalizedError, Sendable, Equatable {
    /// The file could not be opened or created.
    case cannotOpen(path: String, reason: String)
    /// The file is not an SQLite database (or is damaged beyond reading).
    case corrupt(path: String, reason: String)
    /// An SQLite database that is not podq's.
    case foreign(path: String)
    /// Made by a newer podq, with a schema this one does not know.
    case newerVersion(path: String)
    /// Any other database failure.
    case database(String)
    /// No download has that id.
    case noSuchDownload(Int64)

    public var errorDescription: String? {
        switch self {
        case .cannotOpen(let path, let reason):
            "Cannot open the queue database \(path): \(reason). Check that the folder exists and is writable, or set --home / PODQ_HOME."
        case .corrupt(let path, let reason):
            "The queue database \(path) is damaged (\(reason)). podq has not changed it. Move it aside (mv '\(path)' '\(path).bad') to start an empty queue; your downloaded files are not affected."
        case .foreign(path: let path):
            "\(path) is an SQLite database that podq did not create; podq will not touch it. Use another --home, or move the file aside."
        case .newerVersion(let path):
            "The queue database \(path) was written by a newer podq. Update podq, or use another --home."
        case .database(let reason):
            "Queue database error: \(reason)."
        case .noSuchDownload(let id):
            "There is no download #\(id); `podq queue` lists them."
        }
    }
}
