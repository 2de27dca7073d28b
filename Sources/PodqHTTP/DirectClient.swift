import FoundationEssentials
import Glibc
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL
import PodqBase
import Synchronization

/// podq's own HTTP/1.1 client, for media sent direct and for plain http through an HTTP proxy
/// (ProxyForwarding.swift): NIO (and NIOSSL for https), one connection per request
/// (`Connection: close`), the response fed to a ``StreamingDelegate`` by a ``ResponseRelay``. It owns
/// its bootstrap and its TLS context. Per chunk it does a third of the work async-http-client does,
/// and it holds less memory per download (docs/PERFORMANCE.md, docs/DECISIONS.md). Feeds and proxied
/// https stay on async-http-client.
final class DirectClient: Sendable {
    private let connectTimeout: TimeAmount
    /// The same trust as async-http-client's; the context is made at the first https request.
    private let tlsConfiguration: TLSConfiguration
    private let tlsContext = Mutex<NIOSSLContext?>(nil)

    init(tlsConfiguration: TLSConfiguration, connectTimeout: TimeAmount) {
        self.tlsConfiguration = tlsConfiguration
        self.connectTimeout = connectTimeout
    }

    private func tls() throws -> NIOSSLContext {
        try tlsContext.withLock { made in
            if let made { return made }
            let context = try NIOSSLContext(configuration: tlsConfiguration)
            made = context
            return context
        }
    }

    /// Sends a GET for `url` with `headers` straight to its host, the response to `delegate`, and
    /// returns the response's head.
    func get(_ url: URL, headers: HTTPHeaders, into delegate: StreamingDelegate, on eventLoop: any EventLoop) async throws -> HTTPResponseHead {
        guard let target = Self.target(url) else { throw DownloadError.network("the URL \(url.absoluteString) has no host") }
        var headers = headers
        if !headers.contains(name: "Host") { headers.add(name: "Host", value: target.hostHeader) }
        headers.replaceOrAdd(name: "Connection", value: "close")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target.path, headers: headers)
        let security = target.secure ? (context: try tls(), serverName: target.serverName) : nil
        let address = target.hostHeader.contains(":") ? target.hostHeader : "\(target.hostHeader):\(target.port)"
        return try await open(
            host: target.host, port: target.port, tls: security, request: head, peer: "the server", decompress: false,
            into: delegate, on: eventLoop
        ) { error in
            Self.isRefused(error) ? DownloadError.connectionRefused(address: address) : error
        }
    }

    /// Where and what to ask for `url`.
    struct Target: Equatable {
        /// The host to connect to: a name, or an address without brackets.
        var host: String
        var port: Int
        var secure: Bool
        /// The `Host` header: the host (an IPv6 address in brackets) and the port when the URL names one.
        var hostHeader: String
        /// The request target: the path and query as the URL spells them (signed links stay intact).
        var path: String
        /// The TLS server name: the host, unless it is an address (certificates name those differently).
        var serverName: String?
    }

    static func target(_ url: URL) -> Target? {
        guard let parts = URLComponents(url: url, resolvingAgainstBaseURL: false), var host = parts.host, !host.isEmpty else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let secure = parts.scheme?.lowercased() == "https"
        let isAddress = host.contains(":") || host.split(separator: ".").allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
        let bracketed = host.contains(":") ? "[\(host)]" : host
        var path = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
        if let query = parts.percentEncodedQuery { path += "?" + query }
        return Target(
            host: host, port: parts.port ?? (secure ? 443 : 80), secure: secure,
            hostHeader: parts.port.map { "\(bracketed):\($0)" } ?? bracketed, path: path,
            serverName: isAddress ? nil : host)
    }

    /// Opens a connection to `host:port` (TLS with `tls`, its server name and certificate checked),
    /// sends `request` on it, hands the response to this delegate and returns its head.
    /// - Parameters:
    ///   - peer: who answers, in messages ("the proxy", "the server").
    ///   - eventLoop: the loop the connection lives on: the caller picks it once per request, so that the
    ///     request's deadline and its connection take one turn of the group's round robin, not two (two
    ///     turns put every download on the same one of two loops).
    ///   - connectFailure: the error a failed connection is reported as.
    func open(
        host: String, port: Int, tls: (context: NIOSSLContext, serverName: String?)?, request: HTTPRequestHead, peer: String,
        decompress: Bool, into delegate: StreamingDelegate, on eventLoop: any EventLoop,
        connectFailure: @escaping @Sendable (any Error) -> any Error
    ) async throws -> HTTPResponseHead {
        let connectTimeout = self.connectTimeout
        return try await delegate.start(on: eventLoop) {
            let budget = ReceiveBudget.shared
            let grant = budget.reserve()
            let outcome = ConnectOutcome()
            let connecting = ClientBootstrap(group: eventLoop)
                .connectTimeout(connectTimeout)
                .channelOption(ChannelOptions.autoRead, value: false)
                .channelOption(
                    ChannelOptions.recvAllocator,
                    value: AdaptiveRecvByteBufferAllocator(
                        minimum: 64, initial: 2048, maximum: delegate.rateLimiter?.readSize(atMost: grant.readSize) ?? grant.readSize)
                )
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        // Batches pay when connections compete for the CPU; a few downloads' reads are as
                        // large as their windows already, and a paced connection reads small on purpose.
                        if grant.others >= ReadBatching.crowd, delegate.rateLimiter == nil,
                            let batching = ReadBatching(readSize: grant.readSize, patience: ReadBatcher.patience(stall: delegate.limits.stall))
                        {
                            try pipeline.addHandler(ReadBatcher(state: batching))
                        }
                        if let tls { try pipeline.addHandler(NIOSSLClientHandler(context: tls.context, serverHostname: tls.serverName)) }
                        let headGuard = ResponseHeadGuard()
                        try pipeline.addHandler(headGuard)
                        try pipeline.addHTTPClientHandlers()
                        if decompress {
                            try pipeline.addHandler(NIOHTTPResponseDecompressor(limit: .ratio(AsyncHTTPTransport.maxDecompressionRatio)))
                        }
                        try pipeline.addHandler(ResponseRelay(delegate: delegate, request: request, peer: peer, headGuard: headGuard, connect: outcome))
                    }
                }
                .connect(host: host, port: port)
            connecting.whenComplete { result in
                switch result {
                case .success(let channel):
                    channel.closeFuture.whenComplete { _ in budget.release(grant) }
                    outcome.succeeded()
                    delegate.attach { channel.close(promise: nil) }
                case .failure(let error):
                    budget.release(grant)
                    delegate.failed(connectFailure(error))
                }
            }
        }
    }

    /// True when `error` is a refused connection (ECONNREFUSED), however NIO wraps it.
    static func isRefused(_ error: any Error) -> Bool {
        if let io = error as? IOError { return io.errnoCode == ECONNREFUSED }
        if let connect = error as? NIOConnectionError {
            return !connect.connectionErrors.isEmpty && connect.connectionErrors.allSatisfy { ($0.error as? IOError)?.errnoCode == ECONNREFUSED }
        }
        return false
    }

    static func reason(_ error: any Error) -> String {
        if let io = error as? IOError { return String(cString: strerror(io.errnoCode)) }
        if let connect = error as? NIOConnectionError {
            // No address to try: the name did not resolve (said with the name, not as "no address").
            guard let first = connect.connectionErrors.first else { return "could not resolve the host \(SafeText.clean(connect.host))" }
            return (first.error as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? String(describing: first.error)
        }
        if error is ChannelError { return "timed out" }
        return String(describing: error)
    }
}
