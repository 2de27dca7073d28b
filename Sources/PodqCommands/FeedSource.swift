import Foundation
import PodqCore

/// Reads a feed from a URL (fetched with conditional GET) or a file, for the subscription commands.
enum FeedSource {
    struct Loaded {
        var feed: Feed
        /// Where the feed lives now: the final URL after a permanent redirect, else the one given.
        var location: String
        var etag: String?
        var lastModified: String?
    }

    /// What the user gave: an http(s) URL, or a file.
    enum Resolved: Equatable {
        case url(String)
        case file(String)
    }

    /// Reads what a user pastes: an http(s) URL; a podcast app's link (``podcastLink(_:)``); a file that
    /// exists; a scheme-less address such as
    /// `example.org/feed.xml` (https, as browsers read it); anything else with `scheme://` is refused
    /// (`htp://…` is a typo, not a file name); the rest is a file path.
    /// - Throws: ``FeedError/fetch(_:)`` with ``DownloadError/unsupportedScheme(_:)`` for another scheme.
    static func resolve(_ source: String) throws(FeedError) -> Resolved {
        let trimmed = podcastLink(source.trimmingCharacters(in: .whitespacesAndNewlines))
        if let range = trimmed.range(of: "://") {
            let scheme = trimmed[..<range.lowerBound].lowercased()
            guard scheme == "http" || scheme == "https" else { throw .fetch(.unsupportedScheme(trimmed)) }
            return .url(trimmed)
        }
        let path = (trimmed as NSString).expandingTildeInPath
        if FileManager.default.fileExists(atPath: path) { return .file(URL(fileURLWithPath: path).standardizedFileURL.path) }
        if let url = schemelessURL(trimmed) { return .url(url) }
        return .file(URL(fileURLWithPath: path).standardizedFileURL.path)
    }

    /// A podcast app's link as the feed's URL: `feed://host/x` and `itpc://`, `pcast://`, `podcast://`
    /// (what "subscribe" buttons on websites hand over) → `http://host/x`, as podcast apps read them (a
    /// server that wants https redirects); `feed:https://…` and `podcast://https://…` → the URL inside.
    /// Anything else as it is.
    static func podcastLink(_ text: String) -> String {
        let lowered = text.lowercased()
        if lowered.hasPrefix("feed:http://") || lowered.hasPrefix("feed:https://") { return String(text.dropFirst(5)) }
        for scheme in ["feed", "itpc", "pcast", "podcast"] where lowered.hasPrefix(scheme + "://") {
            let rest = text.dropFirst(scheme.count + 3)
            // `podcast://http://…` and the like carry the whole URL.
            if rest.lowercased().hasPrefix("http://") || rest.lowercased().hasPrefix("https://") { return String(rest) }
            return "http://" + rest
        }
        return text
    }

    /// `https://` + `text` when `text` starts with a host name (`example.org/feed.xml`,
    /// `127.0.0.1:8080/x`), as a browser reads it; nil for anything that looks like a path.
    static func schemelessURL(_ text: String) -> String? {
        guard !text.contains("://"), !text.hasPrefix("/"), !text.hasPrefix("."), !text.hasPrefix("~") else { return nil }
        let host = text.split(separator: "/", maxSplits: 1).first.map(String.init) ?? ""
        guard host.contains("."), !host.hasSuffix(".xml"), !host.hasSuffix(".rss"), !host.hasSuffix(".opml"),
              host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-:".contains($0)) })
        else { return nil }
        return "https://" + text
    }

    /// The feed at `source`; nil when the server says it has not changed (304).
    static func load(_ source: String, transport: any HTTPTransport, etag: String? = nil, lastModified: String? = nil,
                     sizeLimit: Int64 = FeedParser.defaultSizeLimit, trace: URLChain? = nil) async throws(FeedError) -> Loaded? {
        let address: String
        switch try resolve(source) {
        case .file(let absolute):
            return Loaded(feed: try FeedParser.parse(file: absolute, sizeLimit: sizeLimit), location: absolute)
        case .url(let text):
            address = text
        }
        guard let url = URL(string: address) else { throw .fetch(.invalidURL(address)) }
        switch try await FeedFetcher(transport: transport, sizeLimit: sizeLimit).fetch(url, etag: etag, lastModified: lastModified, trace: trace) {
        case .notModified:
            return nil
        case .fetched(let file, let finalURL, let newETag, let newLastModified, let moved):
            defer { unlink(file) }
            let feed = try FeedParser.parse(file: file, baseURL: finalURL, sizeLimit: sizeLimit)
            return Loaded(feed: feed, location: moved ? finalURL.absoluteString : address, etag: newETag, lastModified: newLastModified)
        }
    }
}
