import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// The live ``HTTPTransport``: AsyncHTTPClient, streaming the body with backpressure.
///
/// Redirects are not followed here (see ``HTTPTransport``); decompression is off, since podcast media
/// is already compressed and a byte count must match `Content-Length`.
public final class AsyncHTTPTransport: HTTPTransport {
    /// The `User-Agent` podq sends.
    public static let userAgent = "podq/\(PodqVersion.current)"

    private let client: HTTPClient

    /// - Parameters:
    ///   - connectTimeout: how long to wait for a connection.
    ///   - stallTimeout: how long the body may go without a byte, while podq waits for one, before the
    ///     attempt fails (timed by ``StreamingDelegate``).
    ///   - responseTimeout: how long the server may take to send a complete head (status and headers)
    ///     from the request on, however its bytes trickle in (a deadline of podq's own).
    ///   - rateLimiter: the global speed limit the downloads share (nil: none).
    public init(connectTimeout: Duration = .seconds(10), stallTimeout: Duration = .seconds(30), responseTimeout: Duration = .seconds(30),
                rateLimiter: RateLimiter? = nil) {
        self.rateLimiter = rateLimiter
        var trustError: DownloadError?
        var tls: TLSConfiguration?
        do { tls = try TLSTrust.configuration() } catch { trustError = error }
        self.trustError = trustError
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
        self.client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        self.stallSeconds = Double(Self.nanos(stallTimeout)) / 1e9
        self.responseSeconds = Double(Self.nanos(responseTimeout)) / 1e9
    }

    private let stallSeconds: Double
    private let responseSeconds: Double
    private let rateLimiter: RateLimiter?
    /// Why `SSL_CERT_FILE` or `SSL_CERT_DIR` cannot be used: every request fails with it.
    private let trustError: DownloadError?

    /// The most connections to one host: podq's highest `simultaneous-downloads`.
    public static let maxConnectionsPerHost = 64

    /// Closes the connections. Call once no request is running.
    public func shutdown() async {
        try? await client.shutdown()
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        if let trustError { throw trustError }
        var headers = request.headers
        if !headers.contains(name: "User-Agent") {
            headers.add(name: "User-Agent", value: Self.userAgent)
        }
        let (stall, response) = (stallSeconds, responseSeconds)
        let delegate = StreamingDelegate(rateLimiter: rateLimiter, stallSeconds: stall) { error, duringBody in
            Self.map(error, stallSeconds: stall, responseSeconds: response, duringBody: duringBody)
        }
        // The head has a deadline of its own, apart from the body's stall clock: a head that never
        // comes, or trickles in a byte at a time, ends here as `noResponse`.
        let timedOut = Atomic<Bool>(false)
        let deadline = MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: .nanoseconds(Int64(responseSeconds * 1e9))) {
            timedOut.store(true, ordering: .relaxed)
            delegate.cancel()
        }
        defer { deadline.cancel() }
        do {
            let outgoing = try HTTPClient.Request(url: request.url.absoluteString, method: .GET, headers: headers)
            let head = try await delegate.start(outgoing, on: client)
            // The deadline fired as the head came: the request is cancelled, so say why.
            if timedOut.load(ordering: .relaxed) { throw DownloadError.noResponse(seconds: responseSeconds) }
            return TransportResponse(status: Int(head.status.code), headers: head.headers,
                                     body: ResponseBody(source: delegate))
        } catch where timedOut.load(ordering: .relaxed) {
            throw DownloadError.noResponse(seconds: responseSeconds)
        } catch {
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
        // Its reason is found by the caller, which knows the host (``TLSTrust/reason(raw:host:port:)``).
        if TLSTrust.isCertificateFailure(error) { return DownloadError.untrustedCertificate(host: "", reason: TLSTrust.rawReason(error)) }
        // Any other TLS failure, in words rather than BoringSSL's error stack.
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            return DownloadError.connectionFailed(TLSTrust.handshakeReason(error))
        }
        if let client = error as? HTTPClientError {
            switch client {
            case .cancelled: return CancellationError()
            case .readTimeout:
                return duringBody ? DownloadError.stalled(seconds: responseSeconds) : DownloadError.noResponse(seconds: responseSeconds)
            case .connectTimeout, .socksHandshakeTimeout, .tlsHandshakeTimeout:
                return DownloadError.connectionFailed("timed out")
            case .remoteConnectionClosed:
                return duringBody ? DownloadError.connectionLost("closed by the server")
                    : DownloadError.connectionFailed("closed by the server")
            default:
                return duringBody ? DownloadError.connectionLost(String(describing: client))
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
            let reason = connect.connectionErrors.first.map { String(describing: $0.error) } ?? "no address"
            return DownloadError.connectionFailed(reason)
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
