import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL
import PodqBase

/// Plain http through an HTTP proxy the way curl and browsers send it: the request goes to the proxy
/// with the whole URL as its target (`GET http://host/path HTTP/1.1`), which every HTTP proxy takes.
/// AsyncHTTPClient only tunnels (`CONNECT host:80`), which squid and tinyproxy refuse by default for
/// any port but 443, so podq sends these requests itself: one connection per request
/// (`Connection: close`), the response fed to the same ``StreamingDelegate`` as AHC's (its backpressure,
/// stall clock, speed limit and errors) by a ``ResponseRelay``, as media sent direct is
/// (``start(direct:headers:tls:on:connectTimeout:)``).
extension StreamingDelegate {
    /// Sends `url` through `proxy` with `headers` and returns the response's head.
    /// - Parameter decompress: decode a gzip or deflate body (a feed's), under AHC's own ratio limit.
    func start(
        forwarding url: URL, headers: HTTPHeaders, via proxy: ProxySettings.Server, on eventLoop: any EventLoop,
        connectTimeout: TimeAmount, decompress: Bool
    ) async throws -> HTTPResponseHead {
        var headers = headers
        if !headers.contains(name: "Host"), let host = url.host {
            headers.add(name: "Host", value: url.port.map { "\(host):\($0)" } ?? host)
        }
        headers.replaceOrAdd(name: "Connection", value: "close")
        if let user = proxy.user {
            headers.replaceOrAdd(name: "Proxy-Authorization", value: "Basic " + Data("\(user):\(proxy.password ?? "")".utf8).base64EncodedString())
        }
        var target = url.absoluteString
        if let hash = target.firstIndex(of: "#") { target = String(target[..<hash]) }
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers)
        return try await open(
            host: proxy.host, port: proxy.port, tls: nil, request: head, peer: "the proxy", on: eventLoop,
            connectTimeout: connectTimeout, decompress: decompress
        ) { error in
            DownloadError.connectionFailed("the proxy \(proxy.description): \(Self.reason(error))")
        }
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
        on eventLoop: any EventLoop, connectTimeout: TimeAmount, decompress: Bool, connectFailure: @escaping @Sendable (any Error) -> any Error
    ) async throws -> HTTPResponseHead {
        startWholeDeadline(on: eventLoop)
        return try await start {
            let budget = ReceiveBudget.shared
            let grant = budget.reserve()
            let outcome = ConnectOutcome()
            let connecting = ClientBootstrap(group: eventLoop)
                .connectTimeout(connectTimeout)
                .channelOption(ChannelOptions.autoRead, value: false)
                .channelOption(
                    ChannelOptions.recvAllocator,
                    value: AdaptiveRecvByteBufferAllocator(
                        minimum: 64, initial: 2048, maximum: self.rateLimiter?.readSize(atMost: grant.readSize) ?? grant.readSize)
                )
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        if let tls { try pipeline.addHandler(NIOSSLClientHandler(context: tls.context, serverHostname: tls.serverName)) }
                        let headGuard = ResponseHeadGuard()
                        try pipeline.addHandler(headGuard)
                        try pipeline.addHTTPClientHandlers()
                        if decompress {
                            try pipeline.addHandler(NIOHTTPResponseDecompressor(limit: .ratio(AsyncHTTPTransport.maxDecompressionRatio)))
                        }
                        try pipeline.addHandler(ResponseRelay(delegate: self, request: request, peer: peer, headGuard: headGuard, connect: outcome))
                    }
                }
                .connect(host: host, port: port)
            connecting.whenComplete { result in
                switch result {
                case .success(let channel):
                    channel.closeFuture.whenComplete { _ in budget.release(grant) }
                    outcome.succeeded()
                    self.attach { channel.close(promise: nil) }
                case .failure(let error):
                    budget.release(grant)
                    self.failed(connectFailure(error))
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
