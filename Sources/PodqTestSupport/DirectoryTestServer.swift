import Crypto
import Foundation
import PodqServer
import Synchronization

/// A loopback server of the three podcast directories podq searches, each answering in its documented
/// shape: Apple's iTunes Search API (`/search?term=…&media=podcast&entity=podcast`: `{"resultCount",
/// "results": [{"kind": "podcast", "collectionName", "artistName", "feedUrl", "trackCount",
/// "releaseDate"…}]}`), gpodder.net's `/search.json?q=…` (a list of `{"url", "title", "author",
/// "description", "subscribers"…}`) and Podcast Index's `/api/1.0/search/byterm?q=…` (`{"status":
/// "true", "feeds": [{"title", "url", "author", "description", "episodeCount", "newestItemPubdate"…}]}`,
/// refused with 401 unless `X-Auth-Key`, `X-Auth-Date` and `Authorization` (SHA-1 of key, secret and
/// date) are right).
///
/// Each directory has its own catalogue (so a test can put a hostile entry in one), matched on every
/// word of the search in the title or author (the shows in the order given); and its own behaviour: up, down (503), slow (no answer
/// for a while) or answering garbage.
public final class DirectoryTestServer: Sendable {
    public let http: HTTPServer

    /// One show in a directory's catalogue; `feed` is written as given (nil: the field is left out).
    public struct Show: Sendable {
        public var title: String
        public var author: String
        public var feed: String?
        public var episodes: Int?
        public var latest: Date?
        public var description: String
        public var subscribers: Int

        public init(
            _ title: String, author: String = "", feed: String?, episodes: Int? = nil, latest: Date? = nil, description: String = "",
            subscribers: Int = 0
        ) {
            self.title = title
            self.author = author
            self.feed = feed
            self.episodes = episodes
            self.latest = latest
            self.description = description
            self.subscribers = subscribers
        }
    }

    public enum Behaviour: Sendable {
        case up, down, garbage
        /// The answer's head waits this long.
        case slow(seconds: Double)
    }

    public enum Name: String, Sendable, CaseIterable {
        case itunes, gpodder, podcastindex

        var path: String {
            switch self {
            case .itunes: "/search"
            case .gpodder: "/search.json"
            case .podcastindex: "/api/1.0/search/byterm"
            }
        }
    }

    struct State {
        var catalogues: [Name: [Show]] = [:]
        var behaviours: [Name: Behaviour] = [:]
        var key: (key: String, secret: String)?
    }
    private let state: Mutex<State>

    private init(http: HTTPServer, state: State) {
        self.http = http
        self.state = Mutex(state)
    }

    /// Starts a server with one catalogue for every directory (`catalogue`), and Podcast Index's key.
    public static func start(catalogue: [Show] = [], key: (String, String)? = ("PIKEY", "pi-secret")) async throws -> DirectoryTestServer {
        let box = Box()
        // Under `PODQ_TEST_SEGMENTING` (make test's second pass) every answer leaves cut at random bytes too.
        let http = try await HTTPServer.start(segmenting: TestServer.environmentSegmenting) { request in
            await box.server?.answer(request) ?? .text(503, "starting")
        }
        var initial = State()
        for name in Name.allCases { initial.catalogues[name] = catalogue }
        initial.key = key.map { (key: $0.0, secret: $0.1) }
        let server = DirectoryTestServer(http: http, state: initial)
        box.set(server)
        return server
    }

    private final class Box: Sendable {
        private let held = Mutex<DirectoryTestServer?>(nil)
        var server: DirectoryTestServer? { held.withLock { $0 } }
        func set(_ server: DirectoryTestServer) { held.withLock { $0 = server } }
    }

    public func stop() async { await http.stop() }

    /// The endpoint of `name`, as the config's `search-<name>-url` takes it.
    public func endpoint(_ name: Name) -> String { http.url(name.path).absoluteString }

    /// The config lines that point podq at this server (and give Podcast Index's key).
    public var configLines: String {
        let key = state.withLock { $0.key }
        var lines = Name.allCases.map { "search-\($0.rawValue)-url = \(endpoint($0))" }
        if let key { lines += ["podcastindex-key = \(key.key)", "podcastindex-secret = \(key.secret)"] }
        return lines.joined(separator: "\n") + "\n"
    }

    public func setCatalogue(_ name: Name, _ shows: [Show]) { state.withLock { $0.catalogues[name] = shows } }
    public func set(_ name: Name, _ behaviour: Behaviour) { state.withLock { $0.behaviours[name] = behaviour } }

    /// The requests `name` received.
    public func requests(_ name: Name) -> [ServerRequest] { http.log.requests.filter { $0.path == name.path } }

    // MARK: - Answers

    func answer(_ request: ServerRequest) async -> ServerResponse {
        guard let name = Name.allCases.first(where: { $0.path == request.path }) else { return .text(404, "no such page") }
        let (shows, behaviour, key) = state.withLock { ($0.catalogues[name] ?? [], $0.behaviours[name] ?? .up, $0.key) }
        switch behaviour {
        case .down: return .text(503, "Service Unavailable")
        case .garbage: return .text(200, "<html>maintenance</html>", headers: [("Content-Type", "text/html")])
        case .slow(let seconds):
            var response = json(for: name, shows: shows, request: request)
            response.headDelay = seconds
            return response
        case .up: break
        }
        if name == .podcastindex {
            guard let key, request.header("X-Auth-Key") == key.key, let date = request.header("X-Auth-Date"),
                let sent = Int(date), abs(Double(sent) - Date().timeIntervalSince1970) < 300,
                request.header("Authorization")?.lowercased() == Self.sha1(key.key + key.secret + date)
            else {
                return .text(401, #"{"status":"false","description":"Authorization failed"}"#, headers: [("Content-Type", "application/json")])
            }
        }
        return json(for: name, shows: shows, request: request)
    }

    private func json(for name: Name, shows: [Show], request: ServerRequest) -> ServerResponse {
        let query = request.query
        let words = (query[name == .itunes ? "term" : "q"] ?? "").lowercased().split(separator: " ").map(String.init)
        let limit = Int(query[name == .itunes ? "limit" : "max"] ?? "") ?? 50
        let found = shows.filter { show in
            let text = (show.title + " " + show.author).lowercased()
            return !words.isEmpty && words.allSatisfy(text.contains)
        }.prefix(name == .gpodder ? 50 : limit)
        let iso = ISO8601DateFormatter()
        let object: Any
        switch name {
        case .itunes:
            object = [
                "resultCount": found.count,
                "results": found.enumerated().map { index, show -> [String: Any] in
                    var item: [String: Any] = [
                        "wrapperType": "track", "kind": "podcast", "collectionId": 1000 + index, "trackId": 1000 + index,
                        "artistName": show.author, "collectionName": show.title, "trackName": show.title,
                        "artworkUrl600": "https://is1.example/art\(index).jpg", "primaryGenreName": "Podcasts",
                    ]
                    if let feed = show.feed { item["feedUrl"] = feed }
                    if let episodes = show.episodes { item["trackCount"] = episodes }
                    if let latest = show.latest { item["releaseDate"] = iso.string(from: latest) }
                    return item
                },
            ]
        case .gpodder:
            object = found.map { show -> [String: Any] in
                var item: [String: Any] = [
                    "title": show.title, "author": show.author, "description": show.description, "subscribers": show.subscribers,
                    "subscribers_last_week": show.subscribers, "logo_url": NSNull(), "website": "https://example.org/",
                    "mygpo_link": "http://gpodder.net/podcast/x",
                ]
                item["url"] = show.feed ?? ""
                return item
            }
        case .podcastindex:
            object = [
                "status": "true", "count": found.count, "query": query["q"] ?? "", "description": "Found matching feeds",
                "feeds": found.enumerated().map { index, show -> [String: Any] in
                    var item: [String: Any] = [
                        "id": 900 + index, "title": show.title, "author": show.author, "ownerName": show.author,
                        "description": show.description, "link": "https://example.org/", "language": "en",
                        "lastUpdateTime": Int((show.latest ?? Date(timeIntervalSince1970: 0)).timeIntervalSince1970),
                    ]
                    if let feed = show.feed { item["url"] = feed }
                    if let episodes = show.episodes { item["episodeCount"] = episodes }
                    if let latest = show.latest { item["newestItemPubdate"] = Int(latest.timeIntervalSince1970) }
                    return item
                },
            ]
        }
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data("[]".utf8)
        return ServerResponse(status: 200, headers: [("Content-Type", "application/json; charset=utf-8")], body: .bytes(Array(data)))
    }

    /// SHA-1 in hex by swift-crypto: not podq's own digests, so a mistake in those is not repeated here.
    static func sha1(_ text: String) -> String {
        Insecure.SHA1.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
