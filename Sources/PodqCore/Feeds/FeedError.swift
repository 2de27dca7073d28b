import Foundation

/// Why a feed could not be read, with where and what to do.
public enum FeedError: Error, LocalizedError, Sendable, Equatable {
    /// Not well-formed XML, at a line and column.
    case malformed(line: Int, column: Int, reason: String)
    /// Well-formed, but neither RSS nor Atom.
    case notAFeed(root: String)
    /// Larger than the size cap.
    case tooLarge(limit: Int64)
    /// The file could not be read.
    case unreadable(path: String, reason: String)
    /// Fetching the feed failed.
    case fetch(DownloadError)
    /// Entities that expand without end, or an external entity: refused.
    case hostileEntities

    public var errorDescription: String? {
        switch self {
        case .malformed(let line, let column, let reason):
            "The feed is not valid XML at line \(line), column \(column): \(reason). Tell the podcast's publisher; podq cannot read it."
        case .notAFeed(let root):
            "This is XML but not a feed (its root element is <\(SafeText.clean(root))>); give the URL of the RSS or Atom feed."
        case .tooLarge(let limit):
            "The feed is larger than \(limit / 1_000_000) MB, the limit; raise feed-size-limit in the config if you trust it."
        case .unreadable(let path, let reason):
            "Cannot read \(path): \(reason)."
        case .fetch(let error):
            "Cannot fetch the feed: \(error.localizedDescription)"
        case .hostileEntities:
            "The feed declares entities that expand without end or point outside it; podq refuses it."
        }
    }
}
