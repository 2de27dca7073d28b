import FoundationEssentials
import Glibc
import PodqBase
import PodqHTTP

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
    /// Fetching the feed at `url` (when known) failed.
    case fetch(DownloadError, url: String? = nil)
    /// Entities that expand without end, or an external entity: refused.
    case hostileEntities
    /// Entity expansion added more text than ``FeedLimits/expansion`` allows (quadratic expansion).
    case expansionTooLarge(limit: Int64)
    /// One element's text is longer than ``FeedLimits/fieldBytes``.
    case fieldTooLong(element: String, limit: Int)
    /// More items than ``FeedLimits/items``.
    case tooManyItems(limit: Int)
    /// Well-formed XML, but not OPML.
    case notOPML(root: String)
    /// Not XML at all: an audio file, an image, a PDF… (what it looks like).
    case notXML(kind: String)
    /// A web page that links to no feed.
    case webPageWithoutFeed(url: String)
    /// An Apple Podcasts page whose podcast Apple lists with no public feed.
    case appleWithoutFeed(url: String)
    /// libxml2, which reads feeds, OPML and web pages, could not be loaded (dlopen's reason).
    case parserUnavailable(reason: String)

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
        case .fetch(.httpStatus(let code, let url, _), _) where code == 404 || code == 410:
            "The server has no feed at \(SafeText.clean(url)) (HTTP \(code)): check the address, or look on the podcast's website for its feed URL."
        // A download's words would speak of a partial file kept for a resume: a feed has none.
        case .fetch(.stalled(let seconds), _):
            "Cannot fetch the feed: no data arrived for \(Int(seconds)) s (stall-timeout). Try again later."
        case .fetch(.connectionLost(let reason), _):
            "Cannot fetch the feed: the connection broke while it was read (\(reason)). Try again later."
        case .fetch(.shortBody(let received, let expected), _):
            "Cannot fetch the feed: the server sent \(received) of its \(expected) bytes and stopped. Try again later."
        case .fetch(let error, let url?) where !(ErrorText.describe(error).contains(url)):
            "Cannot fetch the feed at \(SafeText.clean(url)): \(ErrorText.describe(error))"
        case .fetch(let error, _):
            "Cannot fetch the feed: \(ErrorText.describe(error))"
        case .notXML(let kind):
            "This is not a feed: it looks like \(kind). To download a file, use `podq download <url>` or `podq queue add <url>`; to subscribe, give the URL of the podcast's RSS or Atom feed."
        case .hostileEntities:
            "The feed declares entities that are built from other entities, expand without end or point outside it (the shape of a \"billion laughs\" attack); podq refuses it."
        case .expansionTooLarge(let limit):
            "The feed's entities expand to more than \(limit >> 20) MiB of text beyond the file itself (one text repeated many times); podq refuses it. If the feed is genuine, tell its publisher."
        case .fieldTooLong(let element, let limit):
            "The feed's <\(SafeText.clean(element))> holds more than \(limit >> 20) MiB of text, far beyond any real feed; podq refuses it. If the feed is genuine, tell its publisher."
        case .webPageWithoutFeed(let url):
            "\(SafeText.clean(url)) is a web page that links to no feed. Look on it for the podcast's RSS link (often under \"Subscribe\" or \"RSS\") and add that URL. "
                + "If the feed is private, this may be its login page: add it with --user NAME."
        case .appleWithoutFeed(let url):
            "Apple lists no public feed for \(SafeText.clean(url)) (shows only on Apple Podcasts, or for its subscribers, have none). Look on the podcast's own website for its RSS feed."
        case .notOPML(let root):
            "This is XML but not an OPML subscription list (its root element is <\(SafeText.clean(root))>)."
        case .parserUnavailable(let reason):
            "libxml2, which reads feeds, OPML files and web pages for podq, cannot be loaded (\(SafeText.clean(reason))). Install it: sudo apt install libxml2."
        case .tooManyItems(let limit):
            "The feed has more than \(limit) items, the limit; podq refuses it rather than keep part of it. If the feed is genuine, tell its publisher."
        }
    }
}
