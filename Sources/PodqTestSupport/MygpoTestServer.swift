import Foundation
import PodqServer
import Synchronization

/// A loopback server of the gpodder.net API v2 as gpodder.net itself (mygpo) answers it, for what does
/// not run here: every device's subscriptions as **objects with `url`** (`format_podcast_list` with
/// `podcast_data`: url, title, description, subscribers, logo_url, website, mygpo_link); episode actions
/// of **any kind** (`flattr`), stored as uploaded and written back with the timestamp as text; upload
/// answers `{"timestamp", "update_urls"}`. One user, Basic auth on every request.
///
/// What a misbehaving server or another device does is injected: raw actions (``addRaw(_:)``: a
/// fractional timestamp, a numeric GUID, a year 9999), and faults on uploads (``fault``).
public final class MygpoTestServer: Sendable {
    public let http: HTTPServer
    private let state: Mutex<State>
    private let user: String
    private let password: String

    /// What the server does to uploads instead of storing them.
    public enum Fault: Sendable, Equatable {
        /// `200` with an empty body (a proxy, a maintenance page): nothing is stored.
        case emptyOK
        /// `500` to the `n`th episode-action upload from now (1 = the next), the others stored.
        case failActionUpload(Int)
        /// `404` with an HTML page to every upload (the app disabled).
        case notFoundToAll
        /// `400` to any subscription upload that holds a feed URL containing `text`.
        case refuseFeed(String)
        /// Episode actions stored, then the answer held `seconds` (a client killed meanwhile never reads it).
        case storeThenHold(Double)
    }

    struct State {
        var devices: [String: (caption: String, type: String)] = [:]
        var subscriptions: [String: [String: (subscribed: Bool, updated: Int64)]] = [:]
        /// Each action's JSON, as stored.
        var actions: [(stored: Int64, json: Data)] = []
        var clock: Int64 = 0
        var fault: Fault?
        var actionUploads = 0
        /// An answer to every action GET in place of the stored actions (a long-lived account's).
        var actionsBody: [UInt8]?
        var log: [String] = []
    }

    public var url: URL { http.url("/").deletingLastPathComponent() }

    private init(http: HTTPServer, user: String, password: String) {
        self.http = http
        self.user = user
        self.password = password
        self.state = Mutex(State())
    }

    public static func start(user: String, password: String) async throws -> MygpoTestServer {
        let box = Mutex<MygpoTestServer?>(nil)
        let http = try await HTTPServer.start { request in box.withLock { $0 }?.answer(request) ?? .text(503, "starting") }
        let server = MygpoTestServer(http: http, user: user, password: password)
        box.withLock { $0 = server }
        return server
    }

    public func stop() async { await http.stop() }

    /// The fault to apply from now on (nil: none).
    public func setFault(_ fault: Fault?) {
        state.withLock {
            $0.fault = fault
            $0.actionUploads = 0
        }
    }

    /// Answers every GET of the episode actions with `body` from now on (nil: the stored actions).
    public func answerActions(with body: [UInt8]?) { state.withLock { $0.actionsBody = body } }

    /// Requests seen, as "METHOD path status".
    public var log: [String] { state.withLock { $0.log } }

    /// Another device subscribes.
    public func phoneSubscribe(device: String, _ urls: [String]) {
        state.withLock { state in
            let now = Self.tick(&state)
            for url in urls { state.subscriptions[device, default: [:]][url] = (true, now) }
        }
    }

    /// Another device's action exactly as given (any field, any type), stored now.
    public func addRaw(_ object: [String: Any]) {
        let json = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        state.withLock { state in state.actions.append((Self.tick(&state), json)) }
    }

    /// Every stored action (uploads and injected ones), as stored.
    public var actions: [[String: Any]] {
        state.withLock { $0.actions.map(\.json) }.compactMap { (try? JSONSerialization.jsonObject(with: $0)) as? [String: Any] }
    }

    /// A device's subscribed feeds.
    public func subscriptions(of device: String) -> [String] {
        state.withLock { $0.subscriptions[device, default: [:]].filter(\.value.subscribed).map(\.key).sorted() }
    }

    private static func tick(_ state: inout State) -> Int64 {
        state.clock = max(state.clock + 1, Int64(Date().timeIntervalSince1970))
        return state.clock
    }

    private static func json(_ object: Any, status: Int = 200) -> ServerResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return ServerResponse(status: status, headers: [("Content-Type", "application/json")], body: .bytes(Array(data)))
    }

    private func authorized(_ request: ServerRequest) -> Bool {
        guard let header = request.header("Authorization"), header.hasPrefix("Basic "),
            let decoded = Data(base64Encoded: String(header.dropFirst(6)))
        else { return false }
        return String(decoding: decoded, as: UTF8.self) == "\(user):\(password)"
    }

    func answer(_ request: ServerRequest) -> ServerResponse {
        let response = route(request)
        state.withLock { $0.log.append("\(request.method) \(request.path) \(response.status)") }
        return response
    }

    private func route(_ request: ServerRequest) -> ServerResponse {
        guard authorized(request) else {
            return ServerResponse(status: 401, headers: [("WWW-Authenticate", "Basic realm=\"gpodder.net\"")], body: .bytes(Array("Unauthorized".utf8)))
        }
        let parts = request.path.split(separator: "/").map(String.init)
        let since = Int64(request.query["since"] ?? "0") ?? 0
        let upload = request.method == "POST" && !request.path.hasPrefix("/api/2/auth/") && !request.path.hasPrefix("/api/2/devices/")
        if upload {
            switch state.withLock({ $0.fault }) {
            case .emptyOK: return ServerResponse(status: 200, body: .empty)
            case .notFoundToAll: return .text(404, "<html><body><h1>Not Found</h1></body></html>")
            default: break
            }
        }
        // Which call: the path's first parts; the last part is the user's or the device's file.
        let call = parts.count >= 3 && parts[0] == "api" ? parts[2] + (parts.count == 5 ? "/device" : "") : parts.first ?? ""
        let file = parts.last ?? ""
        switch (request.method, call) {
        case ("POST", "auth/device"):
            return ServerResponse(status: 200, body: .empty)
        case ("POST", "devices/device"):
            let id = String(file.dropLast(5))
            let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] ?? [:]
            state.withLock { $0.devices[id] = ((body["caption"] as? String) ?? "", (body["type"] as? String) ?? "other") }
            return Self.json([String: Any]())
        case ("GET", "devices"):
            let rows = state.withLock { state in
                state.devices.map { id, device -> [String: Any] in
                    [
                        "id": id, "caption": device.caption, "type": device.type,
                        "subscriptions": state.subscriptions[id, default: [:]].filter(\.value.subscribed).count,
                    ]
                }
            }
            return Self.json(rows)
        case ("GET", "subscriptions") where parts.count == 2:
            // mygpo's all_subscriptions: format_podcast_list(..., podcast_data).
            let urls = state.withLock { state in Set(state.subscriptions.values.flatMap { $0.filter(\.value.subscribed).map(\.key) }).sorted() }
            return Self.json(
                urls.map {
                    [
                        "url": $0, "title": "A podcast", "description": "", "subscribers": 3, "logo_url": NSNull(), "website": "https://example.org/",
                        "mygpo_link": "https://gpodder.net/podcast/1",
                    ]
                })
        case ("GET", "subscriptions/device"):
            let device = String(file.dropLast(5))
            let (add, remove, now) = state.withLock { state -> ([String], [String], Int64) in
                let rows = state.subscriptions[device, default: [:]].filter { $0.value.updated > since }
                return (rows.filter(\.value.subscribed).map(\.key).sorted(), rows.filter { !$0.value.subscribed }.map(\.key).sorted(), Self.tick(&state))
            }
            return Self.json(["add": add, "remove": remove, "timestamp": now, "update_urls": [[String]]()])
        case ("POST", "subscriptions/device"):
            let device = String(file.dropLast(5))
            guard let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] else { return .text(400, "bad JSON") }
            let add = body["add"] as? [String] ?? [], remove = body["remove"] as? [String] ?? []
            if case .refuseFeed(let text) = state.withLock({ $0.fault }), (add + remove).contains(where: { $0.contains(text) }) {
                return .text(400, "Invalid URL")
            }
            let now = state.withLock { state in
                let now = Self.tick(&state)
                for url in add { state.subscriptions[device, default: [:]][url] = (true, now) }
                for url in remove { state.subscriptions[device, default: [:]][url] = (false, now) }
                return now
            }
            return Self.json(["timestamp": now, "update_urls": [[String]]()])
        case ("GET", "episodes") where state.withLock({ $0.actionsBody != nil }):
            return ServerResponse(status: 200, headers: [("Content-Type", "application/json")], body: .bytes(state.withLock { $0.actionsBody ?? [] }))
        case ("GET", "episodes"):
            let (rows, now) = state.withLock { state -> ([Data], Int64) in
                (state.actions.filter { $0.stored > since }.map(\.json), Self.tick(&state))
            }
            let sent = rows.compactMap { try? JSONSerialization.jsonObject(with: $0) }
            return Self.json(["actions": sent, "timestamp": now])
        case ("POST", "episodes"):
            guard let list = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [[String: Any]] else { return .text(400, "bad JSON") }
            let failed = state.withLock { state -> Bool in
                state.actionUploads += 1
                if case .failActionUpload(let n) = state.fault, n == state.actionUploads { return true }
                return false
            }
            if failed { return .text(500, "Internal Server Error") }
            let objects = list.compactMap { try? JSONSerialization.data(withJSONObject: $0) }
            let now = state.withLock { state in
                let now = Self.tick(&state)
                for json in objects { state.actions.append((now, json)) }
                return now
            }
            var answer = Self.json(["timestamp": now, "update_urls": [[String]]()])
            if case .storeThenHold(let seconds) = state.withLock({ $0.fault }) { answer.headDelay = seconds }
            return answer
        default:
            return .text(404, "<html><body>Not found</body></html>")
        }
    }
}
