import AsyncHTTPClient
import FoundationEssentials
import Glibc
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import PodqBase
import Synchronization

/// The live ``HTTPTransport``: podq's own connection for media sent direct, AsyncHTTPClient for the
/// rest, each streaming the body with backpressure.
///
/// Redirects are not followed here (see ``HTTPTransport``). Media sent direct goes over podq's own
/// HTTP/1.1 client (``DirectClient``: a third of the work per chunk); plain http through an HTTP proxy
/// is forwarded by it too (``DirectClient/forward(_:headers:via:decompress:into:on:)``). The rest goes
/// through async-http-client, whose clients share the event loops: media is never decoded (a byte
/// count must match `Content-Length`); feeds go through a second client that decodes gzip and
/// deflate (``TransportRequest/decompress``).
///
/// The `User-Agent` is podq's own (``defaultUserAgent``) unless the config sets one. When a web
/// firewall (Cloudflare, CloudFront, Akamai…) answers 403 to it, the request is sent once more with
/// the browser-compatible form (``browserUserAgent``), which keeps podq's name; what worked is
/// remembered per host for the rest of the run and logged.
public final class AsyncHTTPTransport: HTTPTransport {
    /// The `User-Agent` podq sends by default: its name, version and where to read about it.
    public static let defaultUserAgent = "podq/\(PodqVersion.current) (+\(PodqVersion.projectURL))"
    /// The form some web firewalls let through, still naming podq.
    public static let browserUserAgent = "Mozilla/5.0 (compatible; podq/\(PodqVersion.current))"

    /// The clients: one per kind of body (media, feed) and proxy, made when first needed.
    private let clients = Mutex<[ClientKey: HTTPClient]>([:])
    private let baseConfiguration: HTTPClient.Configuration
    private let proxies: ProxySettings
    /// Why the proxy settings cannot be used: every request fails with it.
    private let proxyError: DownloadError?

    private struct ClientKey: Hashable {
        var decompress: Bool
        var proxy: ProxySettings.Server?
    }
    /// The agent of the config (`user-agent`), or nil for podq's own with the firewall fallback.
    private let configuredAgent: String?
    /// Hosts whose firewall let the browser-compatible agent through.
    private let browserHosts = Mutex<Set<String>>([])
    private let logger: Logger

    /// - Parameters:
    ///   - connectTimeout: how long to wait for a connection.
    ///   - stallTimeout: how long the body may go without a byte, while podq waits for one, before the
    ///     attempt fails (timed by ``StreamingDelegate``).
    ///   - responseTimeout: how long the server may take to send a complete head (status and headers)
    ///     from the request on, however its bytes trickle in (a deadline of podq's own).
    ///   - fetchTimeout: how long a feed, a web page or a sidecar (a request that decodes its body,
    ///     ``TransportRequest/decompress``) may take, head and body: it then fails with
    ///     ``DownloadError/tooSlow(seconds:)``. Media has no such deadline (it resumes).
    ///   - userAgent: the config's `user-agent`; nil for ``defaultUserAgent``.
    ///   - logger: where a change of agent is said.
    ///   - proxies: the proxies (``ProxySettings/from(environment:configured:)``), or the error that
    ///     makes them unusable; none by default.
    public init(
        connectTimeout: Duration = .seconds(10), stallTimeout: Duration = .seconds(30), responseTimeout: Duration = .seconds(30),
        fetchTimeout: Duration = .seconds(120), userAgent: String? = nil, logger: Logger = .disabled,
        proxies: Result<ProxySettings, DownloadError> = .success(ProxySettings())
    ) {
        switch proxies {
        case .success(let settings): (self.proxies, self.proxyError) = (settings, nil)
        case .failure(let error): (self.proxies, self.proxyError) = (ProxySettings(), error)
        }
        self.configuredAgent = userAgent.flatMap { $0.isEmpty ? nil : $0 }
        self.logger = logger
        var trustError: DownloadError?
        var tls: TLSConfiguration?
        do { tls = try TLSTrust.configuration() } catch { trustError = error }
        self.trustError = trustError
        self.direct = DirectClient(
            tlsConfiguration: tls ?? TLSConfiguration.makeClientConfiguration(), connectTimeout: .nanoseconds(Self.nanos(connectTimeout)))
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            redirectConfiguration: .disallow,
            // No read timeout of AHC's: it would time the head and the body alike (and count a slow
            // disk or the speed limit as a stall). podq times each phase itself: `send` the head,
            // StreamingDelegate the body.
            timeout: .init(connect: .nanoseconds(Self.nanos(connectTimeout)), read: nil),
            decompression: .disabled
        )
        configuration.httpVersion = .automatic
        // AHC's default of 8 connections per host silently queued `--jobs 9…64` against one server
        // inside the client (found by the TUI benchmark: 50 "running", 8 transferring). podq's own
        // limit decides how many run; the pool must not cap it below.
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = Self.maxConnectionsPerHost
        // A refused connection fails now, not after the connect timeout: AHC would otherwise retry
        // inside one request until `connect` runs out (10 s for a port nobody listens on; AHC issue
        // 743). podq's own retry policy (with backoff, and its count in the row) does the retrying.
        configuration.connectionPool.retryConnectionEstablishment = false
        self.baseConfiguration = configuration
        self.stallSeconds = Double(Self.nanos(stallTimeout)) / 1e9
        self.responseSeconds = Double(Self.nanos(responseTimeout)) / 1e9
        self.fetchSeconds = Double(Self.nanos(fetchTimeout)) / 1e9
    }

    private let stallSeconds: Double
    private let responseSeconds: Double
    private let fetchSeconds: Double
    /// Why `SSL_CERT_FILE` or `SSL_CERT_DIR` cannot be used: every request fails with it.
    private let trustError: DownloadError?
    /// podq's own client: media sent direct, and plain http through an HTTP proxy.
    private let direct: DirectClient

    /// The most connections to one host: podq's highest `simultaneous-downloads`.
    public static let maxConnectionsPerHost = 64
    /// How many times its size a compressed feed may grow when decoded.
    public static let maxDecompressionRatio = 200

    /// Closes the connections. Call once no request is running. Waits for async-http-client at most
    /// ``shutdownLimit`` a client: a run that ended is not held open by a pool that does not close.
    public func shutdown() async {
        let all = clients.withLock { clients in
            defer { clients = [:] }
            return Array(clients.values)
        }
        for client in all {
            await BoundedWait.run(within: Self.shutdownLimit) { try? await client.shutdown() }
        }
    }

    /// The longest ``shutdown()`` waits for one client's connections to close.
    public static let shutdownLimit = Duration.seconds(5)

    /// The client for a request: decoding (a feed's) or not (media), through its proxy or direct.
    private func client(decompress: Bool, proxy: ProxySettings.Server?) -> HTTPClient {
        let key = ClientKey(decompress: decompress, proxy: proxy)
        return clients.withLock { clients in
            if let made = clients[key] { return made }
            var configuration = baseConfiguration
            // Feeds: decoded, at most 200 times the bytes sent (a real feed compresses 5 to 20 times;
            // a gzip bomb stops here, and the feed's size limit counts what is decoded).
            if decompress { configuration.decompression = .enabled(limit: .ratio(Self.maxDecompressionRatio)) }
            if let proxy {
                switch proxy.kind {
                case .http:
                    let login = proxy.user.map { HTTPClient.Authorization.basic(username: $0, password: proxy.password ?? "") }
                    configuration.proxy = .server(host: proxy.host, port: proxy.port, authorization: login)
                case .socks:
                    configuration.proxy = .socksServer(host: proxy.host, port: proxy.port)
                }
            }
            let made = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
            clients[key] = made
            return made
        }
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        if let trustError { throw trustError }
        if let proxyError { throw proxyError }
        let host = request.url.host?.lowercased() ?? ""
        if request.headers.contains(name: "User-Agent") { return try await sendOnce(request) }
        let agent = configuredAgent ?? (browserHosts.withLock { $0.contains(host) } ? Self.browserUserAgent : Self.defaultUserAgent)
        var first = request
        first.headers.add(name: "User-Agent", value: agent)
        let response = try await sendOnce(first)
        guard response.status == 403, agent == Self.defaultUserAgent, let firewall = Self.firewall(response.headers) else { return response }
        // A web firewall refused podq's own agent: once more as a browser-compatible client (the
        // refusal read first, a few bytes, so its connection can serve again).
        try? await RedirectFollower.drain(response.body)
        var second = request
        second.headers.add(name: "User-Agent", value: Self.browserUserAgent)
        let retried = try await sendOnce(second)
        let worked = retried.status != 403
        if worked { browserHosts.withLock { _ = $0.insert(host) } }
        logger.notice(
            worked
                ? "a web firewall refused podq's User-Agent; the browser-compatible one worked and is used for this host"
                : "a web firewall refused podq's User-Agent and the browser-compatible one",
            metadata: ["host": "\(host)", "firewall": "\(firewall)", "status": "\(retried.status)", "user-agent": "\(Self.browserUserAgent)"])
        return retried
    }

    /// The web firewall a 403's headers name (`Server: cloudflare`, CloudFront's `X-Cache`…), or nil.
    static func firewall(_ headers: HTTPHeaders) -> String? {
        let server = headers.first(name: "Server")?.lowercased() ?? ""
        if server.contains("cloudflare") || headers.contains(name: "CF-RAY") || headers.contains(name: "cf-mitigated") { return "Cloudflare" }
        if server.contains("cloudfront") || headers.contains(name: "X-Amz-Cf-Id")
            || headers[canonicalForm: "X-Cache"].contains(where: { $0.lowercased().contains("cloudfront") })
        {
            return "CloudFront"
        }
        if server.contains("akamai") { return "Akamai" }
        if server.contains("sucuri") || headers.contains(name: "X-Sucuri-ID") { return "Sucuri" }
        if headers.contains(name: "X-Iinfo") || headers[canonicalForm: "X-CDN"].contains(where: { $0.lowercased().contains("imperva") }) { return "Imperva" }
        return nil
    }

    private func sendOnce(_ request: TransportRequest) async throws -> TransportResponse {
        let (stall, response) = (stallSeconds, responseSeconds)
        // `fetch-timeout` bounds the whole fetch, redirects included: a later hop has what is left.
        var whole = request.decompress ? fetchSeconds : nil
        if let limit = whole, let started = request.fetchStarted {
            let spent = ContinuousClock.now - started
            let left = limit - (Double(spent.components.seconds) + Double(spent.components.attoseconds) / 1e18)
            guard left > 0 else { throw DownloadError.tooSlow(seconds: limit) }
            whole = left
        }
        let proxied = proxies.server(for: request.url)
        // The head has a deadline of its own, apart from the body's stall clock: a head that never
        // comes, or trickles in a byte at a time, ends as `noResponse` (the delegate's clocks).
        let limits = StreamingDelegate.Limits(
            head: response, stall: stall, whole: whole, wholeLimit: request.decompress ? fetchSeconds : nil)
        let delegate = StreamingDelegate(rateLimiter: request.pacing, limits: limits) { error, duringBody in
            // A proxy's 407 to an https tunnel (CONNECT) reaches the delegate as AHC's error: said as
            // the proxy's, in the same words as its 407 to a plain request.
            if let proxied, let client = error as? HTTPClientError, client == .proxyAuthenticationRequired {
                return DownloadError.proxyLogin(proxy: proxied.description, hadLogin: proxied.user != nil)
            }
            return Self.map(error, stallSeconds: stall, responseSeconds: response, duringBody: duringBody)
        }
        // One loop for the request's clocks and its connection: asking the group twice would put
        // every connection on the same loop of two (round robin), all downloads on one core.
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        do {
            let head: HTTPResponseHead
            let plainGet = request.method == .GET && request.body == nil
            if proxied == nil, !request.decompress, plainGet {
                // Media sent direct: podq's own connection.
                head = try await direct.get(request.url, headers: request.headers, into: delegate, on: eventLoop)
            } else if let proxied, proxied.kind == .http, request.url.scheme?.lowercased() == "http", plainGet {
                // Plain http through an HTTP proxy: the whole URL to the proxy, as curl sends it.
                head = try await direct.forward(
                    request.url, headers: request.headers, via: proxied, decompress: request.decompress, into: delegate, on: eventLoop)
            } else {
                let outgoing = try HTTPClient.Request(
                    url: request.url.absoluteString, method: request.method, headers: request.headers, body: request.body.map { .bytes($0) })
                head = try await delegate.start(outgoing, on: client(decompress: request.decompress, proxy: proxied), eventLoop: eventLoop)
            }
            // A proxy's own refusal, not the server's: said as the proxy's.
            if let proxied, head.status.code == 407 {
                delegate.cancel()
                throw DownloadError.proxyLogin(proxy: proxied.description, hadLogin: proxied.user != nil)
            }
            return TransportResponse(status: Int(head.status.code), headers: head.headers, body: ResponseBody(source: delegate))
        } catch {
            if let proxied, let client = error as? HTTPClientError, client == .proxyAuthenticationRequired {
                throw DownloadError.proxyLogin(proxy: proxied.description, hadLogin: proxied.user != nil)
            }
            let mapped = Self.map(error, stallSeconds: stallSeconds, responseSeconds: responseSeconds, duringBody: false)
            // The certificate failed: find out why (a second connection that only reads it).
            if case DownloadError.untrustedCertificate(_, let raw) = mapped, let host = request.url.host {
                let port = request.url.port ?? (request.url.scheme?.lowercased() == "http" ? 80 : 443)
                throw DownloadError.untrustedCertificate(host: host, reason: await TLSTrust.reason(raw: raw, host: host, port: port))
            }
            throw mapped
        }
    }

    /// Turns AsyncHTTPClient and NIO errors into ``DownloadError``s a person can act on.
    static func map(_ error: any Error, stallSeconds: Double, responseSeconds: Double, duringBody: Bool) -> any Error {
        if error is CancellationError || error is DownloadError { return error }
        // NIOHTTPCompression's: a feed that grows past the ratio, or bytes that are not gzip.
        if String(reflecting: type(of: error)).contains("DecompressionError") {
            return String(describing: error).contains("limit")
                ? DownloadError.network("the compressed feed grows more than \(maxDecompressionRatio) times when decoded; it is refused")
                : DownloadError.network("the server's gzip or deflate body could not be decoded (\(error))")
        }
        // Its reason is found by the caller, which knows the host (``TLSTrust/reason(raw:host:port:)``).
        if TLSTrust.isCertificateFailure(error) { return DownloadError.untrustedCertificate(host: "", reason: TLSTrust.rawReason(error)) }
        // Any other TLS failure, in words rather than BoringSSL's error stack.
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            return TLSTrust.handshakeError(error)
        }
        if let client = error as? HTTPClientError {
            switch client {
            case .cancelled: return CancellationError()
            case .readTimeout:
                return duringBody ? DownloadError.stalled(seconds: responseSeconds) : DownloadError.noResponse(seconds: responseSeconds)
            case .connectTimeout, .socksHandshakeTimeout, .tlsHandshakeTimeout:
                return DownloadError.connectionFailed("timed out")
            case .remoteConnectionClosed:
                return duringBody
                    ? DownloadError.connectionLost("closed by the server")
                    : DownloadError.connectionFailed("closed by the server")
            default:
                return duringBody
                    ? DownloadError.connectionLost(String(describing: client))
                    : DownloadError.network(String(describing: client))
            }
        }
        if error is HTTPParserError {
            return DownloadError.connectionLost("the server closed the connection early")
        }
        if let io = error as? IOError {
            let reason = String(cString: strerror(io.errnoCode))
            return duringBody ? DownloadError.connectionLost(reason) : DownloadError.connectionFailed(reason)
        }
        if let connect = error as? NIOConnectionError {
            // In words (strerror), not NIO's "connection reset (error set): …" form.
            return DownloadError.connectionFailed(DirectClient.reason(connect))
        }
        let text = String(describing: error)
        if text.contains("connectionRefused") || text.contains("Connection refused") {
            return DownloadError.connectionFailed("connection refused")
        }
        return duringBody ? DownloadError.connectionLost(text) : DownloadError.connectionFailed(text)
    }

    private static func nanos(_ d: Duration) -> Int64 {
        let (s, a) = d.components
        return s * 1_000_000_000 + a / 1_000_000_000
    }
}
