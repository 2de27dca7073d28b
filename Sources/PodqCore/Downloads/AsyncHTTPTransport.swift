import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

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
    ///   - stallTimeout: how long the body may go without a byte before the attempt fails.
    ///   - rateLimiter: the global speed limit the downloads share (nil: none).
    public init(connectTimeout: Duration = .seconds(10), stallTimeout: Duration = .seconds(30), rateLimiter: RateLimiter? = nil) {
        self.rateLimiter = rateLimiter
        var trustError: DownloadError?
        var tls: TLSConfiguration?
        do { tls = try TLSTrust.configuration() } catch { trustError = error }
        self.trustError = trustError
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            redirectConfiguration: .disallow,
            timeout: .init(connect: .nanoseconds(Self.nanos(connectTimeout)), read: .nanoseconds(Self.nanos(stallTimeout))),
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
    }

    private let stallSeconds: Double
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
        let stall = stallSeconds
        let delegate = StreamingDelegate(rateLimiter: rateLimiter) { error, duringBody in
            Self.map(error, stallSeconds: stall, duringBody: duringBody)
        }
        // The head is timed apart from the body: AHC's read timeout counts whole parsed parts, so a
        // head that trickles in a byte at a time, or never comes, ends here as `noResponse`.
        do {
            let outgoing = try HTTPClient.Request(url: request.url.absoluteString, method: .GET, headers: headers)
            let head = try await delegate.start(outgoing, on: client)
            return TransportResponse(status: Int(head.status.code), headers: head.headers,
                                     body: ResponseBody(source: delegate))
        } catch {
            let mapped = Self.map(error, stallSeconds: stallSeconds, duringBody: false)
            // The certificate failed: find out why (a second connection that only reads it).
            if case DownloadError.untrustedCertificate(_, let raw) = mapped, let host = request.url.host {
                let port = request.url.port ?? (request.url.scheme?.lowercased() == "http" ? 80 : 443)
                throw DownloadError.untrustedCertificate(host: host, reason: await TLSTrust.reason(raw: raw, host: host, port: port))
            }
            throw mapped
        }
    }

    /// Turns AsyncHTTPClient and NIO errors into ``DownloadError``s a person can act on.
    static func map(_ error: any Error, stallSeconds: Double, duringBody: Bool) -> any Error {
        if error is CancellationError || error is DownloadError { return error }
        // Its reason is found by the caller, which knows the host (``TLSTrust/reason(raw:host:port:)``).
        if TLSTrust.isCertificateFailure(error) { return DownloadError.untrustedCertificate(host: "", reason: TLSTrust.rawReason(error)) }
        if let client = error as? HTTPClientError {
            switch client {
            case .cancelled: return CancellationError()
            case .readTimeout:
                return duringBody ? DownloadError.stalled(seconds: stallSeconds) : DownloadError.noResponse(seconds: stallSeconds)
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
