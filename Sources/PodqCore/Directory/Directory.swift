import FoundationEssentials
import Glibc
import NIOHTTP1
import PodqBase
import PodqHTTP

/// A podcast directory podq can search: Apple's iTunes Search API (no key), gpodder.net's search, and
/// Podcast Index (a key and secret, free, from api.podcastindex.org). Each turns words into a request
/// and its answer into ``DirectoryShow``s; ``DirectorySearch`` asks them at once and merges the answers.
public enum Directory: String, Sendable, CaseIterable, Codable {
    case itunes, gpodder, podcastindex

    /// The directory's name in messages.
    public var name: String {
        switch self {
        case .itunes: "iTunes"
        case .gpodder: "gpodder.net"
        case .podcastindex: "Podcast Index"
        }
    }

    /// The public endpoint (the config's `search-<directory>-url` replaces it: tests, mirrors).
    public var defaultEndpoint: String {
        switch self {
        case .itunes: "https://itunes.apple.com/search"
        case .gpodder: "https://gpodder.net/search.json"
        case .podcastindex: "https://api.podcastindex.org/api/1.0/search/byterm"
        }
    }

    /// Podcast Index's login: the key and secret the user registered.
    public struct Key: Sendable, Equatable {
        public var key: String
        public var secret: String
        public init(key: String, secret: String) {
            self.key = key
            self.secret = secret
        }
    }

    /// The request for `words` at `endpoint`: at most `limit` shows. `now` is Podcast Index's
    /// `X-Auth-Date`.
    /// - Returns: nil when `endpoint` makes no URL.
    public func request(words: String, limit: Int, endpoint: String, key: Key?, now: Date = Date()) -> TransportRequest? {
        guard var parts = URLComponents(string: endpoint) else { return nil }
        var query = parts.queryItems ?? []
        switch self {
        case .itunes:
            query += [
                URLQueryItem(name: "term", value: words), URLQueryItem(name: "media", value: "podcast"),
                URLQueryItem(name: "entity", value: "podcast"), URLQueryItem(name: "limit", value: String(limit)),
            ]
        case .gpodder:
            query += [URLQueryItem(name: "q", value: words)]
        case .podcastindex:
            query += [URLQueryItem(name: "q", value: words), URLQueryItem(name: "max", value: String(limit))]
        }
        parts.queryItems = query
        // `+` is a space to these servers' form decoding: a literal plus is sent as %2B.
        parts.percentEncodedQuery = parts.percentEncodedQuery?.replacingEvery("+", with: "%2B")
        guard let url = parts.url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        var headers = HTTPHeaders()
        headers.add(name: "Accept", value: "application/json")
        if self == .podcastindex, let key {
            // Podcast Index's "Amazon-style" login: SHA-1 of key, secret and the time, in hex.
            let date = String(Int(now.timeIntervalSince1970))
            headers.add(name: "X-Auth-Key", value: key.key)
            headers.add(name: "X-Auth-Date", value: date)
            headers.add(name: "Authorization", value: Self.sha1Hex(key.key + key.secret + date))
        }
        return TransportRequest(url: url, headers: headers, decompress: true)
    }

    static func sha1Hex(_ text: String) -> String {
        guard let digester = Digester(.sha1) else { return "" }
        Array(text.utf8).withUnsafeBytes { digester.update($0) }
        return digester.finish().map { String(printf: "%02x", $0) }.joined()
    }

    /// The shows in an answer, in the directory's order, without those that have no usable feed URL.
    /// - Throws: ``DirectoryError/badAnswer(_:detail:)`` when the answer is not this directory's JSON.
    public func shows(in bytes: [UInt8]) throws(DirectoryError) -> [DirectoryShow] {
        let object: Any
        do {
            guard let parsed = JSONTree.any(bytes) else { throw DirectoryError.badAnswer(self, detail: "not JSON") }
            object = parsed
        } catch {
            throw .badAnswer(self, detail: "not JSON")
        }
        let items: [[String: Any]]
        switch self {
        case .itunes:
            guard let results = (object as? [String: Any])?["results"] as? [Any] else { throw .badAnswer(self, detail: "no \"results\" list") }
            items = results.compactMap { $0 as? [String: Any] }
        case .gpodder:
            guard let results = object as? [Any] else { throw .badAnswer(self, detail: "not a list") }
            items = results.compactMap { $0 as? [String: Any] }
        case .podcastindex:
            guard let answer = object as? [String: Any] else { throw .badAnswer(self, detail: "not an object") }
            if let status = answer["status"], "\(status)".lowercased() == "false" {
                throw .badAnswer(self, detail: SafeText.clean(Self.text(answer["description"]) ?? "status false"))
            }
            guard let feeds = answer["feeds"] as? [Any] else { throw .badAnswer(self, detail: "no \"feeds\" list") }
            items = feeds.compactMap { $0 as? [String: Any] }
        }
        return items.compactMap(show)
    }

    /// One item of an answer as a show; nil without a usable feed URL or a title.
    func show(_ item: [String: Any]) -> DirectoryShow? {
        let fields: (title: Any?, author: Any?, feed: [Any?], episodes: Any?, latest: Date?, description: Any?, subscribers: Any?)
        switch self {
        case .itunes:
            if let kind = Self.text(item["kind"]), kind != "podcast" { return nil }
            fields = (
                item["collectionName"] ?? item["trackName"], item["artistName"], [item["feedUrl"]], item["trackCount"],
                Self.text(item["releaseDate"]).flatMap(Self.isoDate).flatMap(Self.possible), nil, nil
            )
        case .gpodder:
            fields = (item["title"], item["author"], [item["url"]], nil, nil, item["description"], item["subscribers"])
        case .podcastindex:
            let latest = Self.number(item["newestItemPubdate"]) ?? Self.number(item["lastUpdateTime"])
            fields = (
                item["title"], item["author"] ?? item["ownerName"], [item["url"], item["originalUrl"]], item["episodeCount"],
                latest.flatMap { Self.possible(Date(timeIntervalSince1970: Double($0))) }, item["description"], nil
            )
        }
        guard let feed = fields.feed.lazy.compactMap({ DirectoryShow.usableFeedURL(Self.text($0)) }).first else { return nil }
        let title = Self.line(Self.text(fields.title))
        let given = (title: Self.line(Self.text(fields.title), clean: false), author: Self.line(Self.text(fields.author), clean: false))
        var show = DirectoryShow(
            title: title.isEmpty ? feed : title, author: Self.line(Self.text(fields.author)), feedURL: feed,
            episodes: Self.number(fields.episodes).flatMap { $0 >= 0 ? $0 : nil }, latest: fields.latest,
            description: Self.text(fields.description).map { ShowNotes.paragraphs(String($0.prefix(20_000))).joined(separator: "\n") } ?? "",
            subscribers: Self.number(fields.subscribers), sources: [rawValue])
        if given.title != show.title || given.author != show.author { show.given = (given.title.isEmpty ? show.title : given.title, given.author) }
        return show
    }

    static func text(_ value: Any?) -> String? {
        switch value {
        case let text as String: text
        case let number as Double: JSONTree.text(of: number)
        case let flag as Bool: flag ? "1" : "0"
        default: nil
        }
    }

    /// A show's latest episode can be neither before 1970 nor more than a year ahead (a directory's
    /// `1e15` is year 31,690,708): such a date is none, not shown as an impossible year.
    static func possible(_ date: Date) -> Date? {
        let seconds = date.timeIntervalSince1970
        return seconds > 0 && seconds < Date().timeIntervalSince1970 + 366 * 86_400 ? date : nil
    }

    static func number(_ value: Any?) -> Int? {
        switch value {
        case let number as Double: number.isFinite ? Int(exactly: number.rounded()) : nil
        case let text as String: Int(text.trimmingSpaces)
        default: nil
        }
    }

    /// One line of a directory's text: cleaned, white space runs made one space, at most 300 characters.
    /// - Parameter clean: false keeps control characters (for JSON, which escapes them).
    static func line(_ value: String?, clean: Bool = true) -> String {
        guard let value else { return "" }
        let words = (clean ? SafeText.clean(value) : value).split(whereSeparator: { $0.isWhitespace || $0.isNewline })
        let joined = words.joined(separator: " ")
        return joined.count > 300 ? String(joined.prefix(299)) + "…" : joined
    }

    static func isoDate(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        return try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
    }
}
