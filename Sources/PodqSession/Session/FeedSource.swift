import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqHTTP

/// Reads a feed from a URL (fetched with conditional GET) or a file, for the subscription commands.
package enum FeedSource {
    package struct Loaded {
        package var feed: Feed
        /// Where the feed lives now: the final URL after a permanent redirect, else the one given.
        package var location: String
        package var etag: String?
        package var lastModified: String?
        /// What the user should hear besides the count: a feed found on a web page, a move that failed.
        package var notes: [String] = []
    }

    /// What the user gave: an http(s) URL, or a file.
    package enum Resolved: Equatable {
        case url(String)
        case file(String)
    }

    /// Reads what a user pastes: an http(s) URL; a podcast app's link (``PodcastLink``); a file that
    /// exists; a scheme-less address such as
    /// `example.org/feed.xml` (https, as browsers read it); anything else with `scheme://` is refused
    /// (`htp://…` is a typo, not a file name); the rest is a file path.
    /// - Throws: ``FeedError/fetch(_:)`` with ``DownloadError/unsupportedScheme(_:)`` for another scheme.
    package static func resolve(_ source: String) throws(FeedError) -> Resolved {
        let trimmed = PodcastLink.resolve(unwrapped(source))
        if let range = trimmed.firstRange(of: "://") {
            let scheme = trimmed[..<range.lowerBound].lowercased()
            guard scheme == "http" || scheme == "https" else { throw .fetch(.unsupportedScheme(trimmed)) }
            return .url(trimmed)
        }
        let path = LexicalPath.expandingTilde(trimmed)
        if FileManager.default.fileExists(atPath: path) { return .file(URL(fileURLWithPath: path).standardizedFileURL.path) }
        if let url = mistypedScheme(trimmed) { return .url(url) }
        if let url = schemelessURL(trimmed) { return .url(url) }
        return .file(URL(fileURLWithPath: path).standardizedFileURL.path)
    }

    /// `text` as pasted from a mail or a chat, without what came with it: white space, `<…>` or quotes
    /// around it, and spaces inside a URL (percent-encoded).
    package static func unwrapped(_ text: String) -> String {
        var trimmed = text.trimmingWhitespace
        for (open, close) in [("<", ">"), ("\"", "\""), ("'", "'")] where trimmed.count >= 2 && trimmed.hasPrefix(open) && trimmed.hasSuffix(close) {
            trimmed = String(trimmed.dropFirst().dropLast()).trimmingWhitespace
        }
        if trimmed.contains("://") && trimmed.contains(" ") { trimmed = trimmed.replacingEvery(" ", with: "%20") }
        return trimmed
    }

    /// `http//host/feed`, `https:/host/feed`, `http:host/feed`: a URL whose `://` lost a character,
    /// with it put back; nil for anything else. (Read as a path, the current folder would be glued on.)
    package static func mistypedScheme(_ text: String) -> String? {
        let lower = text.lowercased()
        for scheme in ["https", "http"] where lower.hasPrefix(scheme) {
            var rest = text.dropFirst(scheme.count)
            let colon = rest.first == ":"
            if colon { rest = rest.dropFirst() }
            let slashes = rest.prefix { $0 == "/" }.count
            // `http//x`, `http:/x`, `http:x` (not `http://x`, handled before, nor a word such as `httpd`).
            guard slashes > 0 || colon, !(colon && slashes == 2) else { return nil }
            rest = rest.dropFirst(slashes)
            guard let host = rest.split(separator: "/").first, host.contains(where: { $0 == "." || $0 == ":" }) || host == "localhost" else { return nil }
            return scheme + "://" + rest
        }
        return nil
    }

    /// `https://` + `text` when `text` starts with a host name (`example.org/feed.xml`,
    /// `127.0.0.1:8080/x`), as a browser reads it; nil for anything that looks like a path.
    package static func schemelessURL(_ text: String) -> String? {
        guard !text.contains("://"), !text.hasPrefix("/"), !text.hasPrefix("."), !text.hasPrefix("~") else { return nil }
        let host = text.split(separator: "/", maxSplits: 1).first.map(String.init) ?? ""
        guard host.contains("."), !host.hasSuffix(".xml"), !host.hasSuffix(".rss"), !host.hasSuffix(".opml"),
            host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-:".contains($0)) })
        else { return nil }
        return "https://" + text
    }

    /// The most pages of a paged feed read at once (RFC 5005).
    package static let pageLimit = 100

    /// The feed at `source`; nil when the server says it has not changed (304).
    ///
    /// Beyond one GET: an Apple Podcasts page leads to the feed Apple's lookup names; a web page leads to the feed it links to (``WebPageFeeds``, the first of
    /// several, with a note); a feed that says it moved (`itunes:new-feed-url`) is read from its new
    /// URL, which becomes ``Loaded/location``; with `allPages`, a paged feed (`atom:link rel="next"`)
    /// is read to its last page, at most ``pageLimit``.
    package static func load(
        _ source: String, transport: any HTTPTransport, etag: String? = nil, lastModified: String? = nil,
        sizeLimit: Int64 = FeedParser.defaultSizeLimit, trace: URLChain? = nil, allPages: Bool = false,
        access: PodcastAccess? = nil, keepNotes: Bool = true
    ) async throws(FeedError) -> Loaded? {
        var address: String
        switch try resolve(source) {
        case .file(let absolute):
            return Loaded(feed: try FeedParser.parse(file: absolute, sizeLimit: sizeLimit, keepNotes: keepNotes), location: absolute)
        case .url(let text):
            address = text
        }
        guard var url = URL(string: address) else { throw .fetch(.invalidURL(address)) }
        var notes: [String] = []
        // An Apple Podcasts page links to no feed: Apple's lookup names it.
        if let id = ApplePodcastsLink.podcastID(of: url) {
            let feed = try await appleFeed(id: id, page: url, transport: transport)
            notes.append("Apple Podcasts lists its feed: \(feed.absoluteString)")
            (url, address) = (feed, feed.absoluteString)
        }
        guard
            var page = try await fetch(
                url, transport: transport, etag: etag, lastModified: lastModified, sizeLimit: sizeLimit, trace: trace,
                access: access, keepNotes: keepNotes)
        else {
            return nil
        }
        var location = page.moved ? page.url.absoluteString : address
        if case .webPage(let candidates) = page.content {
            guard let first = candidates.first, let feedURL = URL(string: first.url) else { throw .webPageWithoutFeed(url: page.url.absoluteString) }
            notes.append(
                candidates.count == 1
                    ? "found the feed \(first.url) on the page"
                    : "the page links to \(candidates.count) feeds; took the first, \(first.url) (the others: \(Self.listed(candidates.dropFirst().map(\.url))))"
            )
            guard
                let found = try await fetch(
                    feedURL, transport: transport, sizeLimit: sizeLimit, trace: trace, access: access,
                    keepNotes: keepNotes)
            else { return nil }
            page = found
            location = page.moved ? page.url.absoluteString : first.url
        }
        guard case .feed(var feed) = page.content else { throw .notAFeed(root: "html") }
        var (newETag, newLastModified) = (page.etag, page.lastModified)
        // The publisher's own word that the feed moved: read it there, and keep the new URL.
        if let moved = feed.newFeedURL, moved != location, moved != page.url.absoluteString, let movedURL = URL(string: moved) {
            do {
                let there = try await fetch(movedURL, transport: transport, sizeLimit: sizeLimit, trace: nil, access: access, keepNotes: keepNotes)
                if let there, case .feed(let newFeed) = there.content, newFeed.newFeedURL != location {
                    feed = newFeed
                    location = there.moved ? there.url.absoluteString : moved
                    (newETag, newLastModified) = (there.etag, there.lastModified)
                } else {
                    // Not a feed there, or two feeds that each name the other: stay, rather than swap on every refresh.
                    notes.append("the feed says it moved to \(moved), which is not a feed that stays there; kept \(location)")
                }
            } catch {
                notes.append("the feed says it moved to \(moved), which could not be read (\(ErrorText.describe(error))); kept \(location)")
            }
        }
        if allPages { notes += try await readPages(of: &feed, transport: transport, sizeLimit: sizeLimit, access: access, keepNotes: keepNotes) }
        return Loaded(feed: feed, location: location, etag: newETag, lastModified: newLastModified, notes: notes)
    }

    /// `urls` for a note: the first five, and how many more (a page may link to thousands).
    package static func listed(_ urls: [String]) -> String {
        urls.prefix(5).joined(separator: ", ") + (urls.count > 5 ? " and \(urls.count - 5) more" : "")
    }

    /// The feed of Apple Podcasts' podcast `id`, from Apple's lookup (``ApplePodcastsLink``).
    package static func appleFeed(id: String, page: URL, transport: any HTTPTransport) async throws(FeedError) -> URL {
        guard let lookup = ApplePodcastsLink.lookupURL(id: id) else { throw .fetch(.invalidURL(ApplePodcastsLink.lookupBase)) }
        guard case .fetched(let file, _, _, _, _, _) = try await FeedFetcher(transport: transport, sizeLimit: 1 << 20).fetch(lookup) else {
            throw .appleWithoutFeed(url: page.absoluteString)
        }
        defer { unlink(file) }
        guard let data = FileManager.default.contents(atPath: file), let feed = ApplePodcastsLink.feedURL(inLookup: data),
            let url = URL(string: feed)
        else { throw .appleWithoutFeed(url: page.absoluteString) }
        return url
    }

    /// Appends the episodes of the pages after `feed` (RFC 5005), not those already in it; returns a
    /// note when the page cap stopped it.
    package static func readPages(
        of feed: inout Feed, transport: any HTTPTransport, sizeLimit: Int64,
        access: PodcastAccess? = nil, keepNotes: Bool = true
    ) async throws(FeedError) -> [String] {
        var seen = Set(feed.episodes.map { $0.guid ?? $0.preferredEnclosure?.url ?? "" })
        var visited: Set<String> = []
        var pages = 1
        while let next = feed.nextPage, let url = URL(string: next), visited.insert(next).inserted {
            guard pages < pageLimit else {
                return ["stopped after \(pageLimit) pages of the paged feed; the older episodes are not listed"]
            }
            let fetched: Page?
            do {
                fetched = try await fetch(url, transport: transport, sizeLimit: sizeLimit, trace: nil, access: access, keepNotes: keepNotes)
            } catch {
                // A later page that fails (a 500, a time-out) keeps the pages read: nothing is lost.
                return [Self.pageFailure(pages + 1, error)]
            }
            guard let page = fetched, case .feed(let more) = page.content else { break }
            pages += 1
            feed.episodes += more.episodes.filter { seen.insert($0.guid ?? $0.preferredEnclosure?.url ?? "").inserted }
            feed.itemsWithoutEnclosure += more.itemsWithoutEnclosure
            feed.repairs.add(more.repairs)
            feed.nextPage = more.nextPage
        }
        return []
    }

    /// The note for page `number` of a paged feed that could not be read.
    package static func pageFailure(_ number: Int, _ error: any Error) -> String {
        "page \(number) of the paged feed could not be read (\(SafeText.clean(ErrorText.describe(error)))); kept the pages before it"
    }

    /// One GET of a feed or a web page, parsed.
    package struct Page {
        package enum Content {
            case feed(Feed)
            /// A web page, with the feeds it links to.
            case webPage([WebPageFeeds.Candidate])
        }
        package var content: Content
        package var url: URL
        package var moved: Bool
        package var etag: String?
        package var lastModified: String?
    }

    /// Fetches `url` and reads what came: a feed, or a web page's feed links. Nil for a 304.
    package static func fetch(
        _ url: URL, transport: any HTTPTransport, etag: String? = nil, lastModified: String? = nil,
        sizeLimit: Int64, trace: URLChain?, access: PodcastAccess? = nil, keepNotes: Bool = true
    ) async throws(FeedError) -> Page? {
        switch try await FeedFetcher(transport: transport, sizeLimit: sizeLimit).fetch(
            url, etag: etag, lastModified: lastModified,
            access: access, trace: trace)
        {
        case .notModified:
            return nil
        case .fetched(let file, let finalURL, let newETag, let newLastModified, let moved, let contentType):
            defer { unlink(file) }
            let content: Page.Content
            if WebPageFeeds.looksLikeHTML(file) {
                content = .webPage(try WebPageFeeds.find(file: file, pageURL: finalURL))
            } else {
                do {
                    content = .feed(try FeedParser.parse(file: file, baseURL: finalURL, sizeLimit: sizeLimit, keepNotes: keepNotes))
                } catch .notXML(let kind) {
                    // What the server called it, as well as what it looks like.
                    let said = contentType.map { SafeText.clean($0).trimmingASCIIWhitespace }.flatMap { $0.isEmpty ? nil : $0 }
                    throw .notXML(kind: kind + (said.map { "; the server called it \($0)" } ?? "; the server did not say what it is"))
                }
            }
            return Page(content: content, url: finalURL, moved: moved, etag: newETag, lastModified: newLastModified)
        }
    }
}
