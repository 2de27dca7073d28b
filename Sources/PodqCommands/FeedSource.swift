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

    /// True for an http(s) URL; anything else is read as a file.
    static func isURL(_ source: String) -> Bool {
        guard let url = URL(string: source), let scheme = url.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }

    /// The feed at `source`; nil when the server says it has not changed (304).
    static func load(_ source: String, transport: any HTTPTransport, etag: String? = nil, lastModified: String? = nil,
                     sizeLimit: Int64 = FeedParser.defaultSizeLimit, trace: URLChain? = nil) async throws(FeedError) -> Loaded? {
        guard isURL(source), let url = URL(string: source) else {
            let path = (source as NSString).expandingTildeInPath
            let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
            return Loaded(feed: try FeedParser.parse(file: absolute, sizeLimit: sizeLimit), location: absolute)
        }
        switch try await FeedFetcher(transport: transport, sizeLimit: sizeLimit).fetch(url, etag: etag, lastModified: lastModified, trace: trace) {
        case .notModified:
            return nil
        case .fetched(let file, let finalURL, let newETag, let newLastModified, let moved):
            defer { unlink(file) }
            let feed = try FeedParser.parse(file: file, baseURL: finalURL, sizeLimit: sizeLimit)
            return Loaded(feed: feed, location: moved ? finalURL.absoluteString : source, etag: newETag, lastModified: newLastModified)
        }
    }
}
