import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix

/// Plain http through an HTTP proxy the way curl and browsers send it: the request goes to the proxy
/// with the whole URL as its target (`GET http://host/path HTTP/1.1`), which every HTTP proxy takes.
/// AsyncHTTPClient only tunnels (`CONNECT host:80`), which squid and tinyproxy refuse by default for
/// any port but 443, so podq sends these requests itself: one connection per request
/// (`Connection: close`), the response fed to the same ``StreamingDelegate`` as AHC's (its backpressure,
/// stall clock, speed limit and errors).
extension StreamingDelegate {
    /// Sends `url` through `proxy` with `headers` and returns the response's head.
    /// - Parameter decompress: decode a gzip or deflate body (a feed's), under AHC's own ratio limit.
    func start(forwarding url: URL, headers: HTTPHeaders, via proxy: ProxySettings.Server, connectTimeout: TimeAmount,
               decompress: Bool) async throws -> HTTPResponseHead {
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
        return try await start {
            let connecting = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(connectTimeout)
                .channelOption(ChannelOptions.autoRead, value: false)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        if decompress {
                            try channel.pipeline.syncOperations.addHandler(
                                NIOHTTPResponseDecompressor(limit: .ratio(AsyncHTTPTransport.maxDecompressionRatio)))
                        }
                        try channel.pipeline.syncOperations.addHandler(ForwardingHandler(delegate: self, request: head))
                    }
                }
                .connect(host: proxy.host, port: proxy.port)
            connecting.whenComplete { result in
                switch result {
                case .success(let channel):
                    self.attach { channel.close(promise: nil) }
                case .failure(let error):
                    self.failed(DownloadError.connectionFailed("the proxy \(proxy.description): \(Self.reason(error))"))
                }
            }
        }
    }

    private static func reason(_ error: any Error) -> String {
        if let io = error as? IOError { return String(cString: strerror(io.errnoCode)) }
        if let connect = error as? NIOConnectionError, let first = connect.connectionErrors.first {
            return (first.error as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? String(describing: first.error)
        }
        if error is ChannelError { return "timed out" }
        return String(describing: error)
    }
}

/// Writes the request, then hands the response to the delegate one part at a time, as AHC does: the
/// next part only once the delegate let the last one go, and the next read only once every part read
/// so far has gone (the channel's autoRead is off, so at most one read's worth waits here).
private final class ForwardingHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let delegate: StreamingDelegate
    private let request: HTTPRequestHead
    /// Parts read and not yet handed over.
    private var queue = CircularBuffer<HTTPClientResponsePart>()
    /// A part is with the delegate, which has not let it go yet.
    private var delivering = false
    /// The delegate heard the end, or a failure: nothing more goes to it.
    private var ended = false
    private var sawHead = false
    /// The connection closed: once the queue is empty, that is the end (a failure without `.end`).
    private var closed = false

    init(delegate: StreamingDelegate, request: HTTPRequestHead) {
        self.delegate = delegate
        self.request = request
    }

    func channelActive(context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(request)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        queue.append(unwrapInboundIn(data))
        drain(context)
    }

    private func drain(_ context: ChannelHandlerContext) {
        while !delivering && !ended, let part = queue.popFirst() {
            let future: EventLoopFuture<Void>
            switch part {
            case .head(let head):
                // An interim answer (100 Continue) is not the response.
                guard head.status.code >= 200 else { continue }
                sawHead = true
                future = delegate.received(head, on: context.eventLoop)
            case .body(let buffer):
                future = delegate.received(buffer, on: context.eventLoop)
            case .end:
                ended = true
                delegate.finished()
                context.close(promise: nil)
                return
            }
            delivering = true
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            future.hop(to: context.eventLoop).assumeIsolated().whenComplete { [self] result in
                delivering = false
                if case .failure = result { return }
                drain(loopBound.value)
            }
        }
        guard !ended && !delivering && queue.isEmpty else { return }
        if closed {
            ended = true
            delegate.failed(sawHead ? DownloadError.connectionLost("the proxy closed the connection") : DownloadError.connectionFailed("the proxy closed the connection"))
        } else if context.channel.isActive {
            context.read()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed = true
        drain(context)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !ended {
            ended = true
            delegate.failed(error is HTTPParserError ? DownloadError.connectionLost("the proxy's answer is not HTTP") : error)
        }
        context.close(promise: nil)
    }
}
