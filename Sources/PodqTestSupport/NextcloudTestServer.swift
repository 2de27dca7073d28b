import Foundation
import PodqServer
import Synchronization

/// A loopback server of Nextcloud's GPodder Sync app, written from the app's API documentation
/// (github.com/thrillfall/nextcloud-gpodder, README "API") and Nextcloud's Login Flow v2, with their
/// rules: Basic auth on every request (401 with a challenge otherwise); subscription changes kept as one
/// row per feed (subscribed or not, and when); episode actions kept as **one row per episode** (by GUID,
/// else by episode URL), **play actions only**, written back as the app writes them (the action in upper
/// case, `-1` for no number); a batch with an action that is not an object with string `podcast`,
/// `episode`, `action` and a text `timestamp` is refused whole (400), as the app's parser does. `since`
/// filters by each action's own timestamp.
public final class NextcloudTestServer: Sendable {
    public let http: HTTPServer
    private let state: Mutex<State>

    struct Subscription {
        var subscribed: Bool
        var updated: Int64
    }

    struct Row {
        var podcast: String
        var episode: String
        var guid: String?
        var timestamp: Int64
        var started: Int
        var position: Int
        var total: Int
    }

    struct State {
        var passwords: [String: String]
        var subscriptions: [String: [String: Subscription]] = [:]
        var actions: [String: [Row]] = [:]
        var flows: [String: (granted: (user: String, password: String)?, created: Date)] = [:]
        var clock: Int64 = 0
        var refusedBatches = 0
    }

    /// The base URL: `http://127.0.0.1:<port>`.
    public var url: URL { http.url("/").deletingLastPathComponent() }
    /// `/` trimmed: what a user types.
    public var base: String {
        var text = http.url("/").absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    private init(http: HTTPServer, users: [String: String]) {
        self.http = http
        self.state = Mutex(State(passwords: users))
    }

    /// Starts a server with these users and their app passwords.
    public static func start(users: [String: String]) async throws -> NextcloudTestServer {
        let box = Box()
        let http = try await HTTPServer.start { request in box.server?.answer(request) ?? .text(503, "starting") }
        let server = NextcloudTestServer(http: http, users: users)
        box.set(server)
        return server
    }

    private final class Box: Sendable {
        private let held = Mutex<NextcloudTestServer?>(nil)
        var server: NextcloudTestServer? { held.withLock { $0 } }
        func set(_ server: NextcloudTestServer) { held.withLock { $0 = server } }
    }

    public func stop() async { await http.stop() }

    /// Batches refused whole so far.
    public var refusedBatches: Int { state.withLock { $0.refusedBatches } }

    /// The user's feeds, as the app lists them (subscribed now).
    public func subscriptions(of user: String) -> [String] {
        state.withLock { $0.subscriptions[user, default: [:]].filter(\.value.subscribed).map(\.key).sorted() }
    }

    /// The user's stored play rows, as JSON objects the app would send.
    public func actions(of user: String) -> [[String: Any]] {
        state.withLock { $0.actions[user, default: []] }.map(Self.json)
    }

    /// What a phone does: subscribe or unsubscribe, at the server's time.
    public func phone(user: String, subscribe: [String] = [], unsubscribe: [String] = []) {
        state.withLock { state in
            let now = Self.tick(&state)
            for url in subscribe { state.subscriptions[user, default: [:]][url] = Subscription(subscribed: true, updated: now) }
            for url in unsubscribe { state.subscriptions[user, default: [:]][url] = Subscription(subscribed: false, updated: now) }
        }
    }

    /// What a phone does: a play of `episode`, stored by the app's rule (one row per episode).
    public func phonePlay(user: String, podcast: String, episode: String, guid: String?, position: Int, total: Int, at timestamp: Int64) {
        state.withLock { state in
            Self.store(
                Row(podcast: podcast, episode: episode, guid: guid, timestamp: timestamp, started: 0, position: position, total: total), for: user, in: &state)
        }
    }

    /// Login Flow v2: the user logged in in the browser and granted access for `token` (the last part of
    /// the login URL podq printed); the next poll answers with a new app password.
    public func grant(loginURL: String, user: String, appPassword: String) {
        let token = String(loginURL.split(separator: "/").last ?? "")
        state.withLock { state in
            state.flows[token]?.granted = (user, appPassword)
            state.passwords[user] = appPassword
        }
    }

    // MARK: - The API

    /// Seconds since 1970, never the same twice in a row (two changes in one second stay in order).
    private static func tick(_ state: inout State) -> Int64 {
        state.clock = max(state.clock + 1, Int64(Date().timeIntervalSince1970))
        return state.clock
    }

    private static func store(_ row: Row, for user: String, in state: inout State) {
        var rows = state.actions[user, default: []]
        if let index = rows.firstIndex(where: { ($0.guid != nil && $0.guid == row.guid) || $0.episode == row.episode }) {
            rows[index] = row
        } else {
            rows.append(row)
        }
        state.actions[user] = rows
    }

    private static func json(_ row: Row) -> [String: Any] {
        [
            "podcast": row.podcast, "episode": row.episode, "guid": row.guid as Any, "action": "PLAY",
            "timestamp": text(row.timestamp), "started": row.started, "position": row.position, "total": row.total,
        ]
    }

    private static func text(_ seconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    private static func seconds(_ text: String) -> Int64? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        return formatter.date(from: String(text.prefix(19))).map { Int64($0.timeIntervalSince1970) }
    }

    private static func answer(_ object: Any, status: Int = 200) -> ServerResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return ServerResponse(status: status, headers: [("Content-Type", "application/json")], body: .bytes(Array(data)))
    }

    /// The user a Basic login names, when its password is right.
    private func user(_ request: ServerRequest) -> String? {
        guard let header = request.header("Authorization"), header.hasPrefix("Basic "),
            let decoded = Data(base64Encoded: String(header.dropFirst(6))).map({ String(decoding: $0, as: UTF8.self) }),
            let colon = decoded.firstIndex(of: ":")
        else { return nil }
        let name = String(decoded[..<colon]), password = String(decoded[decoded.index(after: colon)...])
        return state.withLock { $0.passwords[name] == password } ? name : nil
    }

    func answer(_ request: ServerRequest) -> ServerResponse {
        let app = "/index.php/apps/gpoddersync"
        switch (request.method, request.path) {
        case ("POST", "/index.php/login/v2"):
            let token = UUID().uuidString.replacingOccurrences(of: "-", with: "")
            state.withLock { $0.flows[token] = (nil, Date()) }
            return Self.answer(["poll": ["token": token, "endpoint": base + "/index.php/login/v2/poll"], "login": base + "/index.php/login/v2/flow/" + token])
        case ("POST", "/index.php/login/v2/poll"):
            let body = String(decoding: request.body, as: UTF8.self)
            let token = body.split(separator: "&").first { $0.hasPrefix("token=") }.map { String($0.dropFirst(6)) } ?? ""
            // Answered once, then forgotten, as Nextcloud does.
            let granted = state.withLock { state -> (String, String)? in
                guard let flow = state.flows[token], let granted = flow.granted else { return nil }
                state.flows[token] = nil
                return granted
            }
            guard let granted else { return Self.answer([String](), status: 404) }
            return Self.answer(["server": base, "loginName": granted.0, "appPassword": granted.1])
        default:
            break
        }
        guard request.path.hasPrefix(app) else { return .text(404, "Page not found") }
        guard let user = user(request) else {
            return ServerResponse(
                status: 401, headers: [("WWW-Authenticate", "Basic realm=\"Nextcloud\""), ("Content-Type", "application/json")],
                body: .bytes(Array(#"{"message":"Current user is not logged in"}"#.utf8)))
        }
        let since = Int64(request.query["since"] ?? "0") ?? 0
        switch (request.method, String(request.path.dropFirst(app.count))) {
        case ("GET", "/subscriptions"):
            let (add, remove, now) = state.withLock { state -> ([String], [String], Int64) in
                let rows = state.subscriptions[user, default: [:]].filter { $0.value.updated > since }
                return (rows.filter(\.value.subscribed).map(\.key).sorted(), rows.filter { !$0.value.subscribed }.map(\.key).sorted(), Self.tick(&state))
            }
            return Self.answer(["add": add, "remove": remove, "timestamp": now])
        case ("POST", "/subscription_change/create"):
            guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any],
                let add = object["add"] as? [String], let remove = object["remove"] as? [String]
            else { return Self.answer(["message": "invalid request"], status: 400) }
            let now = state.withLock { state -> Int64 in
                let now = Self.tick(&state)
                for url in add { state.subscriptions[user, default: [:]][url] = Subscription(subscribed: true, updated: now) }
                for url in remove { state.subscriptions[user, default: [:]][url] = Subscription(subscribed: false, updated: now) }
                return now
            }
            return Self.answer(["timestamp": now])
        case ("GET", "/episode_action"):
            let rows = state.withLock { $0.actions[user, default: []].filter { $0.timestamp >= since } }
            let now = state.withLock { Self.tick(&$0) }
            return Self.answer(["actions": rows.map(Self.json), "timestamp": now])
        case ("POST", "/episode_action/create"):
            guard let list = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [Any] else {
                return Self.answer(["message": "invalid request"], status: 400)
            }
            var rows: [Row] = []
            for item in list {
                guard let object = item as? [String: Any], let podcast = object["podcast"] as? String, let episode = object["episode"] as? String,
                    let action = object["action"] as? String, let stamp = object["timestamp"] as? String, let timestamp = Self.seconds(stamp)
                else {
                    state.withLock { $0.refusedBatches += 1 }
                    return Self.answer(["message": "invalid episode action"], status: 400)
                }
                guard action.lowercased() == "play" else { continue }  // the app keeps plays only
                rows.append(
                    Row(
                        podcast: podcast, episode: episode, guid: object["guid"] as? String, timestamp: timestamp,
                        started: object["started"] as? Int ?? -1, position: object["position"] as? Int ?? -1, total: object["total"] as? Int ?? -1))
            }
            let now = state.withLock { state -> Int64 in
                for row in rows { Self.store(row, for: user, in: &state) }
                return Self.tick(&state)
            }
            return Self.answer(["timestamp": now])
        default:
            return .text(404, "Page not found")
        }
    }
}
