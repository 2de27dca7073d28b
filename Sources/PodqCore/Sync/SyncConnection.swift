import FoundationEssentials
import Glibc
import Logging
import NIOCore
import NIOHTTP1
import PodqBase
import PodqHTTP

/// The HTTP under a sync server: every request to the account's origin only, with its Basic login;
/// JSON in and out; a deadline on each whole call, redirects included (the transport's `fetch-timeout`), and a cap on
/// what an answer may weigh.
///
/// A login reaches only the origin it was given for: a redirect is followed (up to 5) only when it
/// stays on the same scheme, host and port; to anywhere else the call fails with
/// ``SyncError/redirectedElsewhere(from:to:)``, and the login is never sent there.
public struct SyncConnection: Sendable {
    /// The server's base URL, without a trailing slash: `https://cloud.example.org`.
    public let base: URL
    public let user: String
    private let password: String
    private let transport: any HTTPTransport
    /// The most an answer may weigh.
    public static let answerLimit = 32 << 20

    /// Each request and its answer at debug level (`--verbose`): method, URL, status, size and time;
    /// never a body (it may hold the login).
    private let logger: Logger

    public init(base: URL, user: String, password: String, transport: any HTTPTransport, logger: Logger = .disabled) {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        self.base = URL(string: text) ?? base
        self.user = user
        self.password = password
        self.transport = transport
        self.logger = logger
    }

    /// The server's name for messages and advice: scheme, host, port and the sub-folder it lives in
    /// (`https://host/nextcloud`), never a login.
    public var serverName: String {
        var path = base.path
        while path.hasSuffix("/") { path.removeLast() }
        return Self.origin(of: base) + path
    }

    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? "https"
        let port = url.port.map { ":\($0)" } ?? ""
        return "\(scheme)://\(url.host?.lowercased() ?? "")\(port)"
    }

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && (a.port ?? defaultPort(a)) == (b.port ?? defaultPort(b))
    }

    private static func defaultPort(_ url: URL) -> Int { url.scheme?.lowercased() == "http" ? 80 : 443 }

    /// `path` (with its query) sent to the server: the status and the answer's bytes (at most
    /// ``answerLimit``).
    /// - Parameter call: the call's name for messages ("the subscription upload").
    public func send(_ method: HTTPMethod, _ path: String, json body: [UInt8]? = nil, call: String) async throws(SyncError) -> (
        status: Int, body: [UInt8]
    ) {
        let answer = try await exchange(method, path, json: body, call: call)
        var bytes: [UInt8] = []
        do {
            for try await chunk in answer.response.body {
                guard bytes.count + chunk.readableBytes <= Self.answerLimit else {
                    throw SyncError.badAnswer(call: call, detail: "more than \(Self.answerLimit >> 20) MB")
                }
                bytes += chunk.readableBytesView
            }
        } catch {
            throw Self.syncError(error)
        }
        answer.log(received: bytes.count)
        return (answer.response.status, bytes)
    }

    /// `path` asked with a GET, its `2xx` answer handed to `consume` chunk by chunk as it arrives,
    /// never held whole: an answer of any size is read in bounded memory (within `fetch-timeout`). Any
    /// other status throws as ``check(_:_:call:)`` says; an error `consume` throws ends the call.
    public func stream(_ path: String, call: String, consume: ([UInt8]) async throws -> Void) async throws {
        let answer = try await exchange(.GET, path, json: nil, call: call)
        var received = 0
        var refused: [UInt8] = []
        do {
            for try await chunk in answer.response.body {
                received += chunk.readableBytes
                if (200..<300).contains(answer.response.status) {
                    try await consume(Array(chunk.readableBytesView))
                } else if refused.count < 65_536 {
                    refused += chunk.readableBytesView.prefix(65_536 - refused.count)
                }
            }
        } catch let error as DownloadError {
            throw SyncError.network(ErrorText.describe(error))
        }
        answer.log(received: received)
        try check(answer.response.status, refused, call: call)
    }

    /// A request's answer with its body unread, and its line for `--verbose`.
    private struct Answer {
        var response: TransportResponse
        var url: URL
        var method: HTTPMethod
        var sent: Int
        var started: ContinuousClock.Instant
        var call: String
        var logger: Logger

        func log(received: Int) {
            let took = ContinuousClock.now - started
            logger.debug(
                "sync request",
                metadata: [
                    "call": "\(call)", "method": "\(method.rawValue)", "url": "\(SafeText.clean(SafeText.redactingCredentials(url.absoluteString)))",
                    "sent": "\(sent)", "status": "\(response.status)", "received": "\(received)",
                    "ms": "\(took.components.seconds * 1000 + took.components.attoseconds / 1_000_000_000_000_000)",
                ])
        }
    }

    private static func syncError(_ error: any Error) -> SyncError {
        switch error {
        case let error as SyncError: error
        case let error as DownloadError: .network(ErrorText.describe(error))
        default: .network(String(describing: error))
        }
    }

    /// Sends the request and follows redirects on the same origin (up to 5), all within one
    /// `fetch-timeout`: the last answer, its body unread.
    private func exchange(_ method: HTTPMethod, _ path: String, json body: [UInt8]?, call: String) async throws(SyncError) -> Answer {
        guard var url = URL(string: base.absoluteString + path) else { throw .badInput("'\(path)' makes no URL with \(serverName)") }
        var method = method
        var body = body
        // `fetch-timeout` bounds the whole call, redirects included.
        let started = ContinuousClock.now
        for _ in 0...5 {
            var headers = HTTPHeaders()
            let login = Data("\(user):\(password)".utf8).base64EncodedString()
            headers.add(name: "Authorization", value: "Basic \(login)")
            headers.add(name: "Accept", value: "application/json")
            if body != nil { headers.add(name: "Content-Type", value: "application/json") }
            var request = TransportRequest(url: url, headers: headers, decompress: true)
            request.method = method
            request.body = body
            request.fetchStarted = started
            let response: TransportResponse
            let sent = ContinuousClock.now
            do {
                response = try await transport.send(request)
            } catch {
                throw Self.syncError(error)
            }
            if (300..<400).contains(response.status), response.status != 304, let location = response.headers.first(name: "Location") {
                logger.debug("sync redirect", metadata: ["call": "\(call)", "status": "\(response.status)", "url": "\(SafeText.clean(url.absoluteString))"])
                try? await RedirectFollower.drain(response.body)
                guard let next = URL(string: location, relativeTo: url)?.absoluteURL else {
                    throw .badAnswer(call: call, detail: "a redirect to '\(SafeText.clean(location))'")
                }
                guard Self.sameOrigin(next, base) else {
                    throw .redirectedElsewhere(from: serverName, to: SafeText.redactingCredentials(Self.origin(of: next)))
                }
                url = next
                // 303, and 301/302 after a POST as browsers do: the next is a GET.
                if response.status == 303 || ((response.status == 301 || response.status == 302) && method != .GET) {
                    method = .GET
                    body = nil
                }
                continue
            }
            return Answer(response: response, url: url, method: method, sent: body?.count ?? 0, started: sent, call: call, logger: logger)
        }
        throw .badAnswer(call: call, detail: "more than 5 redirects")
    }

    /// A call that must answer 2xx with JSON, decoded as `type` (an empty answer decodes from `{}`).
    public func json<T: Decodable>(
        _ method: HTTPMethod, _ path: String, body: (some Encodable)? = nil as [String]?, as type: T.Type, call: String
    ) async throws(SyncError) -> T {
        let sent = try body.map { (body) throws(SyncError) in try Self.encoded(body, call: call) }
        let (status, bytes) = try await send(method, path, json: sent, call: call)
        try check(status, bytes, call: call)
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes.isEmpty ? Array("{}".utf8) : bytes))
        } catch {
            throw .badAnswer(call: call, detail: "not the JSON expected: \(excerpt(bytes))")
        }
    }

    /// An upload: a call that must answer 2xx with what the API says an upload's answer carries, a
    /// JSON object with the server's `timestamp` (and, on gpodder.net, `update_urls`). Anything else, an
    /// empty `200` from a proxy or a maintenance page included, throws: the changes were not taken, and
    /// stay queued.
    public func upload(_ method: HTTPMethod, _ path: String, body: some Encodable, call: String) async throws(SyncError) -> UploadResult {
        let (status, bytes) = try await send(method, path, json: try Self.encoded(body, call: call), call: call)
        try check(status, bytes, call: call)
        guard !bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) else {
            throw .notTaken(call: call, detail: "an empty answer (\(status)), not the server's receipt")
        }
        guard let answer = try? JSONDecoder().decode(Receipt.self, from: Data(bytes)), let timestamp = answer.timestamp else {
            throw .notTaken(call: call, detail: "no receipt with the server's timestamp: \(excerpt(bytes))")
        }
        let pairs = (answer.updateURLs ?? []).compactMap { pair -> (String, String)? in
            guard pair.count == 2, let old = pair[0], let new = pair[1], !new.isEmpty else { return nil }
            return (old, new)
        }
        return UploadResult(timestamp: timestamp, updateURLs: pairs)
    }

    /// `body` as the JSON a request sends.
    static func encoded(_ body: some Encodable, call: String) throws(SyncError) -> [UInt8] {
        do {
            return Array(try JSONEncoder().encode(body))
        } catch {
            throw .badInput("cannot write \(call): \(error)")
        }
    }

    /// Throws for a status that is not 2xx: a refused login, or the status with what the server said.
    public func check(_ status: Int, _ bytes: [UInt8], call: String) throws(SyncError) {
        switch status {
        case 200..<300: return
        case 401, 403: throw .refusedLogin(server: serverName, user: SafeText.clean(user))
        default: throw .status(status, call: call, detail: excerpt(bytes))
        }
    }

    /// The start of an answer, cleaned, for a message: never more than 200 characters, and never the
    /// password, even if a server echoed it. The password is taken out of the whole text first, in
    /// every form a server may echo it (as sent in the login's Base64, percent-escaped, JSON-escaped),
    /// before anything is cleaned or cut: a cut cannot leave half of it.
    func excerpt(_ bytes: [UInt8]) -> String {
        var text = String(decoding: bytes.prefix(Self.answerLimit), as: UTF8.self)
        for secret in secrets where !secret.isEmpty { text = text.replacingEvery(secret, with: "…") }
        text = SafeText.clean(String(text.prefix(400))).trimmingWhitespace
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }

    /// The forms of the password a server may echo, longest first.
    private var secrets: [String] {
        guard !password.isEmpty else { return [] }
        var forms: Set<String> = [password, Data("\(user):\(password)".utf8).base64EncodedString()]
        forms.insert(PercentEncoding.encode(password, allowing: .alphanumerics))
        if let json = try? JSONEncoder().encode(password), let quoted = String(data: json, encoding: .utf8) {
            forms.insert(String(quoted.dropFirst().dropLast()))
        }
        return forms.sorted { $0.count > $1.count }
    }
}

/// An upload's receipt as servers write it.
private struct Receipt: Decodable {
    var timestamp: Int64?
    var updateURLs: [[String?]]?
    enum CodingKeys: String, CodingKey {
        case timestamp
        case updateURLs = "update_urls"
    }
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        timestamp = SyncNumber.seconds(c, .timestamp)
        updateURLs = try? c.decodeIfPresent([[String?]].self, forKey: .updateURLs)
    }
}
