import FoundationEssentials
import Glibc

/// Why a directory gave no shows: said as a note beside the other directories' results, or, when every
/// directory failed, as the search's error.
public enum DirectoryError: Error, Sendable, Equatable, LocalizedError {
    /// The network's error, or a status other than 200.
    case unreachable(Directory, reason: String)
    /// No answer within the search's deadline.
    case tooSlow(Directory, seconds: Int)
    /// An answer that is not the directory's JSON.
    case badAnswer(Directory, detail: String)
    /// Podcast Index is listed in `search-providers` but has no key.
    case noKey

    public var errorDescription: String? {
        switch self {
        case .unreachable(let directory, let reason): "\(directory.name) could not be asked: \(reason)"
        case .tooSlow(let directory, let seconds): "\(directory.name) did not answer within \(seconds) s"
        case .badAnswer(let directory, let detail): "\(directory.name) answered something podq cannot read (\(detail))"
        case .noKey:
            "Podcast Index needs a key: register at https://api.podcastindex.org (free), then set podcastindex-key and podcastindex-secret in the config"
        }
    }
}
