import FoundationEssentials
import Glibc
import PodqBase

/// One show a podcast directory found: what a search lists, merged across directories by its feed URL
/// (``DirectorySearch``). Every text in it is cleaned (``SafeText``) and the feed URL is an http(s) URL
/// without a login.
public struct DirectoryShow: Sendable, Equatable {
    /// The show's title.
    public var title: String
    /// Who makes it, as the directory says ("" when it says nothing).
    public var author: String
    /// Its feed: what `podq add` subscribes to.
    public var feedURL: String
    /// How many episodes the directory counts, when it says.
    public var episodes: Int?
    /// When its latest episode came out (or the directory last saw it change), when it says.
    public var latest: Date?
    /// What the show is about, as plain text ("" when no directory says).
    public var description: String
    /// The show's subscribers on gpodder.net, when that directory listed it (a hint of its reach).
    public var subscribers: Int?
    /// The directories that listed it, in the order asked (``Directory/rawValue``).
    public var sources: [String]
    /// The title and author as the directory gave them, control characters and all (white space runs
    /// made one space): `--json` keeps those as `\uXXXX` escapes (docs/COMMANDS.md), where `title` and
    /// `author` are cleaned for a terminal. Nil when they are the same.
    public var given: (title: String, author: String)?

    public static func == (a: DirectoryShow, b: DirectoryShow) -> Bool {
        a.title == b.title && a.author == b.author && a.feedURL == b.feedURL && a.episodes == b.episodes && a.latest == b.latest
            && a.description == b.description && a.subscribers == b.subscribers && a.sources == b.sources
            && a.given?.title == b.given?.title && a.given?.author == b.given?.author
    }

    public init(
        title: String, author: String = "", feedURL: String, episodes: Int? = nil, latest: Date? = nil, description: String = "",
        subscribers: Int? = nil, sources: [String] = []
    ) {
        self.title = title
        self.author = author
        self.feedURL = feedURL
        self.episodes = episodes
        self.latest = latest
        self.description = description
        self.subscribers = subscribers
        self.sources = sources
    }

    /// The feed URL as a directory gave it, made usable: an http(s) URL with a host, no login, no
    /// white space or control character, at most 2,000 characters; nil otherwise (no feed, a
    /// `javascript:` or `file:` link, a typo'd scheme).
    public static func usableFeedURL(_ given: String?) -> String? {
        guard let given else { return nil }
        let text = given.trimmingWhitespace
        guard !text.isEmpty, text.utf8.count <= 2000, text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && !SafeText.isUnsafe($0) }),
            let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty, url.user == nil, url.password == nil
        else { return nil }
        return text
    }

    /// The key two directories' listings of one show share: the feed URL without its scheme, `www.`,
    /// case in the host, or a trailing `/` (`http://Feeds.example.org/show/` and
    /// `https://feeds.example.org/show` are one show).
    public static func mergeKey(_ feedURL: String) -> String {
        guard var parts = URLComponents(string: feedURL) else { return feedURL }
        var host = parts.host?.lowercased() ?? ""
        if host.hasPrefix("www.") { host.removeFirst(4) }
        parts.host = host
        var path = parts.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        let port = parts.port.map { ":\($0)" } ?? ""
        return host + port + path + (parts.percentEncodedQuery.map { "?" + $0 } ?? "")
    }
}
