import NIOCore
import NIOHTTP1
import Synchronization

/// Writes the request, then hands the response to the delegate one part at a time, as AHC does: the
/// next part only once the delegate let the last one go, and the next read only once every part read
/// so far has gone (the channel's autoRead is off, so at most one read's worth waits here).
///
/// A read that completes no part (a head, or a chunk-size line, that came in several TCP segments)
/// asks for the next read at once (``channelReadComplete(context:)``): however the server's bytes
/// are cut, podq reads on until a part is whole. The head's size is bounded by a
/// ``ResponseHeadGuard`` before the decoder, which this relay tells when the final head came.
final class ResponseRelay: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let delegate: StreamingDelegate
    private let request: HTTPRequestHead
    /// Who answers, in messages: "the proxy", "the server".
    private let peer: String
    /// Parts read and not yet handed over.
    private var queue = CircularBuffer<HTTPClientResponsePart>()
    /// A part is with the delegate, which has not let it go yet.
    private var delivering = false
    /// The delegate heard the end, or a failure: nothing more goes to it.
    private var ended = false
    private var sawHead = false
    /// The connection closed: once the queue is empty, that is the end (a failure without `.end`).
    private var closed = false
    /// An error the pipeline raised while parts read before it still wait: it is told after them (a
    /// response whose end came before the error is whole, whatever followed it).
    private var pendingError: (any Error)?

    /// Counts the head's bytes; told here when the final head came.
    private let headGuard: ResponseHeadGuard?
    private var becameActive = false
    /// The connect's outcome, which decides who tells a channel closed before it became active.
    private let connect: ConnectOutcome

    init(delegate: StreamingDelegate, request: HTTPRequestHead, peer: String, headGuard: ResponseHeadGuard?, connect: ConnectOutcome) {
        self.delegate = delegate
        self.request = request
        self.peer = peer
        self.headGuard = headGuard
        self.connect = connect
    }

    func channelActive(context: ChannelHandlerContext) {
        becameActive = true
        context.write(wrapOutboundOut(.head(request)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if case .head(let head) = part, head.status.code >= 200 { headGuard?.headDone = true }
        queue.append(part)
        drain(context)
    }

    /// A read ended. When it completed no part, nothing waits with the delegate and nothing will call
    /// ``drain(_:)``: read on, or the rest of a head cut in two would never be asked for.
    func channelReadComplete(context: ChannelHandlerContext) {
        if !ended && !delivering && queue.isEmpty && !closed && pendingError == nil && context.channel.isActive {
            context.read()
        }
        context.fireChannelReadComplete()
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
                // nil: the part is written already, go on (no future made per part).
                guard let later = delegate.received(buffer, on: context.eventLoop) else { continue }
                future = later
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
                if case .failure(let error) = result {
                    // The sink refused the part (a web page where audio should be, a full disk): nothing
                    // more is read or handed over.
                    stop(loopBound.value, error)
                    return
                }
                drain(loopBound.value)
            }
        }
        guard !ended && !delivering && queue.isEmpty else { return }
        if let error = pendingError {
            ended = true
            delegate.failed(describe(error))
            context.close(promise: nil)
        } else if closed {
            ended = true
            let reason = "\(peer) closed the connection"
            delegate.failed(sawHead ? DownloadError.connectionLost(reason) : DownloadError.connectionFailed(reason))
        } else if context.channel.isActive {
            context.read()
        }
    }

    private func stop(_ context: ChannelHandlerContext, _ error: any Error) {
        queue.removeAll()
        if !ended {
            ended = true
            delegate.failed(error)
        }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed = true
        drain(context)
        context.fireChannelInactive()
    }

    /// The channel left its event loop. A channel closed after its connection was made but before it
    /// became active (a cancel that came while connecting: the segments of a restarted download, a
    /// pause, SIGTERM) fires no `channelInactive`, only this: without it the delegate would never hear
    /// the end, and its waiter would wait forever with no request and no timer (issue 29).
    ///
    /// A channel that never became active is told only once the connect's outcome is known: a refused
    /// or failed connect closes it too, and that is told by the connect's failure, with its true reason
    /// ("connection refused"), not as a closed connection.
    func channelUnregistered(context: ChannelHandlerContext) {
        if becameActive {
            closed = true
            drain(context)
        } else if !ended {
            let (delegate, reason) = (self.delegate, "\(peer) closed the connection")
            connect.closedBeforeActive {
                delegate.failed(DownloadError.connectionFailed(reason))
            }
        }
        context.fireChannelUnregistered()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !ended && pendingError == nil { pendingError = error }
        drain(context)
        context.close(promise: nil)
    }

    /// A parser error in words: before the head, the answer is not HTTP (no connection worth the name
    /// was made); after it, the body was cut short.
    private func describe(_ error: any Error) -> any Error {
        guard let parser = error as? HTTPParserError else { return error }
        // NIO's own limit on a header list (80 KiB), when a read crosses it before the guard counts it.
        if parser == .headerOverflow && !sawHead { return DownloadError.headTooLarge(limit: ResponseHeadGuard.limit) }
        return sawHead
            ? DownloadError.connectionLost("\(peer) closed the connection early")
            : DownloadError.connectionFailed("\(peer)'s answer is not HTTP")
    }
}

/// Who tells the delegate about a channel that closed before it became active. A connect that failed
/// (refused, timed out, no route) closes its channel too, and is told by the bootstrap's failure with its
/// true reason; a connect that succeeded and whose channel closed before it was active (a cancel that
/// came while connecting) is told by the relay. Both happen on the channel's event loop, in either
/// order: this holds the relay's report until the connect succeeded, and drops it when it failed.
final class ConnectOutcome: Sendable {
    /// Whether the connect succeeded, and a report held until it does. Both sides run on the channel's
    /// event loop, so the lock is never contended; it makes the type Sendable without a promise.
    private let state = Mutex<(connected: Bool, pending: (@Sendable () -> Void)?)>((false, nil))

    /// The connect succeeded: a report held until now is told.
    func succeeded() {
        let held = state.withLock { state in
            state.connected = true
            defer { state.pending = nil }
            return state.pending
        }
        held?()
    }

    /// The channel closed before it became active: `report` is told once the connect succeeded
    /// (now, when it already did), never when it failed.
    func closedBeforeActive(_ report: @escaping @Sendable () -> Void) {
        let now = state.withLock { state in
            if !state.connected { state.pending = report }
            return state.connected
        }
        if now { report() }
    }
}
