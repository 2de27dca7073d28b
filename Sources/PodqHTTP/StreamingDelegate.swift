import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// AsyncHTTPClient's delegate for one request: hands the response head to an `async` caller, then
/// delivers the body either to a sink on the network thread (``ResponseBody/forEach(_:)``: no thread
/// hop per chunk, as curl's single loop) or chunk by chunk to an async iterator.
///
/// Its states are a ``StreamingStateMachine`` behind a `Mutex`: every callback and every call feeds
/// the machine an event and carries out the actions it returns after the lock is released.
///
/// Backpressure: before a consumer attaches, the client reads one chunk and waits with it held (a body
/// sent and closed at once is not lost); a sink runs before the next read, and an iterator's chunk is
/// released when the next one is asked for. A body dropped
/// without being read to the end cancels the request, so a connection is never left half read.
///
/// Stalls: the body is timed here, apart from the head (which a deadline of `response-timeout` in
/// ``AsyncHTTPTransport``'s `send` times). The clock runs only while the client waits for the server — from the moment
/// a chunk has been taken (written, and its turn under the speed limit come) to the next chunk — so a
/// slow disk or a speed limit is never taken for a stalled server.
final class StreamingDelegate: HTTPClientResponseDelegate, BodySource, Sendable {
    typealias Response = Void
    typealias Sink = @Sendable (inout ByteBuffer) throws -> Void
    typealias Machine = StreamingStateMachine<
        CheckedContinuation<HTTPResponseHead, any Error>, CheckedContinuation<ByteBuffer?, any Error>,
        CheckedContinuation<Void, any Error>, EventLoopPromise<Void>, ByteBuffer, Sink
    >

    private struct Shared {
        var machine = Machine()
        /// Ends the transfer: AHC's task, or the forwarding channel (``start(forwarding:headers:via:on:connectTimeout:decompress:)``).
        var stop: (@Sendable () -> Void)?
        /// The head, kept from `didReceiveHead` until its waiter is resumed.
        var head: HTTPResponseHead?
        /// The stall check, from the head to the end.
        var stallCheck: RepeatedTask?
        /// The whole response's deadline (``wholeSeconds``), from the request to the end.
        var wholeDeadline: Scheduled<Void>?
        /// The client's next read, held until the chunk's turn under the speed limit comes; a cancel
        /// opens it at once (at 10 KB/s a turn is seconds away: a stop must not wait for it).
        var paced: EventLoopPromise<Void>?
        /// The timer that opens ``paced`` when its turn comes.
        var pacedTimer: Scheduled<Void>?
    }

    private let shared = Mutex(Shared())
    private let mapError: @Sendable (any Error, Bool) -> any Error
    let rateLimiter: RateLimiter?
    /// Seconds the server may leave the body without a byte while the client waits (nil: not timed).
    private let stallSeconds: Double?
    /// When the client began waiting for the next chunk (uptime ns), 0 while a chunk is being taken.
    private let waitingSince = Atomic<UInt64>(0)
    /// Set when the stall check ended the request: its cancellation is reported as a stall.
    private let stalled = Atomic<Bool>(false)
    /// Seconds the whole response (head and body) may take; nil: no such deadline (media).
    private let wholeSeconds: Double?
    /// The limit said when it is reached: `fetch-timeout` itself, when this response had what was left
    /// of it after redirects.
    private let wholeLimit: Double?
    /// Set when the whole response's deadline ended the request: reported as ``DownloadError/tooSlow(seconds:)``.
    private let expired = Atomic<Bool>(false)

    init(
        rateLimiter: RateLimiter? = nil, stallSeconds: Double? = nil, wholeSeconds: Double? = nil, wholeLimit: Double? = nil,
        mapError: @escaping @Sendable (any Error, Bool) -> any Error
    ) {
        self.rateLimiter = rateLimiter
        self.stallSeconds = stallSeconds
        self.wholeSeconds = wholeSeconds
        self.wholeLimit = wholeLimit ?? wholeSeconds
        self.mapError = mapError
    }

    /// Starts the whole response's deadline on `eventLoop` (when there is one).
    func startWholeDeadline(on eventLoop: any EventLoop) {
        guard let wholeSeconds else { return }
        let deadline = eventLoop.scheduleTask(in: .nanoseconds(Int64(wholeSeconds * 1e9))) { [weak self] in
            guard let self else { return }
            self.expired.store(true, ordering: .relaxed)
            self.cancel()
        }
        let late = shared.withLock { shared -> Bool in
            shared.wholeDeadline = deadline
            return shared.machine.isFinished
        }
        if late { deadline.cancel() }
    }

    /// The client reads on: the stall clock starts.
    private func markWaiting() {
        waitingSince.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
    }

    /// Checks, a few times per stall period, whether the client has waited longer than allowed.
    private func startStallCheck(on eventLoop: any EventLoop) {
        guard let stallSeconds else { return }
        let limit = UInt64(stallSeconds * 1e9)
        let period = TimeAmount.nanoseconds(Int64(min(max(stallSeconds / 4, 0.05), 1) * 1e9))
        markWaiting()
        let check = eventLoop.scheduleRepeatedTask(initialDelay: period, delay: period) { [weak self] repeated in
            guard let self else {
                repeated.cancel()
                return
            }
            let since = self.waitingSince.load(ordering: .relaxed)
            guard since != 0, DispatchTime.now().uptimeNanoseconds &- since > limit else { return }
            repeated.cancel()
            self.stalled.store(true, ordering: .relaxed)
            self.shared.withLock { $0.stop }?()
        }
        let late = shared.withLock { shared -> Bool in
            shared.stallCheck = check
            return shared.machine.isFinished
        }
        if late { check.cancel() }
    }

    private func stopStallCheck() {
        let (check, deadline) = shared.withLock { ($0.stallCheck, $0.wholeDeadline) }
        check?.cancel()
        deadline?.cancel()
    }

    /// Starts `request` on `eventLoop` and returns its head.
    func start(_ request: HTTPClient.Request, on client: HTTPClient, eventLoop: any EventLoop) async throws -> HTTPResponseHead {
        startWholeDeadline(on: eventLoop)
        return try await start {
            let task = client.execute(request: request, delegate: self, eventLoop: .delegateAndChannel(on: eventLoop))
            attach { task.cancel() }
        }
    }

    /// Waits for the head of a transfer that `begin` starts (and hands its way to stop to ``attach(stop:)``).
    func start(_ begin: () -> Void) async throws -> HTTPResponseHead {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponseHead, any Error>) in
                run(shared.withLock { $0.machine.request(headWaiter: continuation) })
                begin()
            }
        } onCancel: {
            cancel()
        }
    }

    /// Keeps how to end the transfer; ends it at once if a cancel came first.
    func attach(stop: @escaping @Sendable () -> Void) {
        let cancel = shared.withLock { shared in
            shared.stop = stop
            return shared.machine.cancelRequested
        }
        if cancel { stop() }
    }

    /// Cancels the request; a waiting consumer gets `CancellationError`. A read held for its turn under
    /// the speed limit is let go at once, so the transfer ends now, not when the turn would have come.
    func cancel() {
        run(shared.withLock { $0.machine.cancel() })
        openPaced()
    }

    /// Holds the client's next read (`gate`) for `nanoseconds`, its chunk's turn under the speed limit;
    /// at once when the request was cancelled or ended (a stop never waits for a turn).
    private func pace(_ gate: EventLoopPromise<Void>, for nanoseconds: UInt64) {
        let now = shared.withLock { shared -> Bool in
            if shared.machine.cancelRequested || shared.machine.isFinished { return true }
            shared.paced = gate
            return false
        }
        if now {
            markWaiting()
            gate.succeed()
            return
        }
        let turn = gate.futureResult
        let timer = turn.eventLoop.scheduleTask(in: .nanoseconds(Int64(min(nanoseconds, UInt64(Int64.max))))) {
            self.openPaced(only: turn)
        }
        // The timer may have fired, or a cancel opened the gate, before it was kept: then it is not kept.
        let stale = shared.withLock { shared -> Bool in
            guard shared.paced?.futureResult === turn else { return true }
            shared.pacedTimer = timer
            return false
        }
        if stale { timer.cancel() }
    }

    /// Lets the held read go: the one whose turn is `only` (its timer), or whichever is held (a cancel).
    private func openPaced(only turn: EventLoopFuture<Void>? = nil) {
        let held = shared.withLock { shared -> (EventLoopPromise<Void>, Scheduled<Void>?)? in
            guard let gate = shared.paced, turn == nil || gate.futureResult === turn else { return nil }
            defer {
                shared.paced = nil
                shared.pacedTimer = nil
            }
            return (gate, shared.pacedTimer)
        }
        guard let (gate, timer) = held else { return }
        if turn == nil { timer?.cancel() }
        markWaiting()
        gate.succeed()
    }

    /// Called when the body is dropped: cancels the request unless it ended.
    func abandon() {
        run(shared.withLock { $0.machine.abandon() })
    }

    // MARK: BodySource

    func forEach(_ sink: @escaping Sink) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                run(shared.withLock { $0.machine.attachSink(sink, done: continuation) })
            }
        } onCancel: {
            cancel()
        }
    }

    func next() async throws -> ByteBuffer? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ByteBuffer?, any Error>) in
                run(shared.withLock { $0.machine.askForChunk(continuation) })
            }
        } onCancel: {
            cancel()
        }
    }

    // MARK: HTTPClientResponseDelegate (called on the connection's event loop)

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        received(head, on: task.eventLoop)
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        received(buffer, on: task.eventLoop) ?? task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        failed(error)
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        finished()
    }

    // MARK: The response, from AsyncHTTPClient or the forwarding channel (on its event loop)

    /// The head came; the returned future completes when the client may read on.
    func received(_ head: HTTPResponseHead, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        startStallCheck(on: eventLoop)
        let gate = eventLoop.makePromise(of: Void.self)
        let actions = shared.withLock { shared in
            shared.head = head
            return shared.machine.head(gate: gate)
        }
        run(actions)
        return gate.futureResult
    }

    /// A chunk of the body came; the returned future completes when the client may read on, and nil
    /// means at once (a sink took the chunk: the common case, which then allocates nothing).
    func received(_ buffer: ByteBuffer, on eventLoop: any EventLoop) -> EventLoopFuture<Void>? {
        waitingSince.store(0, ordering: .relaxed)
        let action = shared.withLock { $0.machine.bodyPart(buffer) { eventLoop.makePromise(of: Void.self) } }
        switch action {
        case .runSink(let sink):
            // The sink path: the chunk is written here, and the client reads on when this returns.
            var chunk = buffer
            do {
                try sink(&chunk)
            } catch {
                run(shared.withLock { $0.machine.sinkFailed(error) })
                return eventLoop.makeFailedFuture(error)
            }
            // The speed limit: the next read waits for this chunk's turn on the shared schedule.
            if let rateLimiter, case let wait = rateLimiter.delay(afterReceiving: buffer.readableBytes), wait > 0 {
                let gate = eventLoop.makePromise(of: Void.self)
                pace(gate, for: wait)
                return gate.futureResult
            }
            markWaiting()
            return nil
        case .deliver(let chunk, let waiter, let gate):
            waiter.resume(returning: chunk)
            return gate.futureResult
        case .hold(let gate):
            return gate.futureResult
        case .open(let gate):
            markWaiting()
            gate.succeed()
            return gate.futureResult
        }
    }

    /// The transfer failed.
    func failed(_ error: any Error) {
        stopStallCheck()
        let map = mapError
        // The stall check cancelled the request: that is a stall, not a cancellation. A connection of
        // podq's own that was closed on a cancel ends with whatever its closing caused (a body cut
        // short): that is the cancellation.
        let cancelled = shared.withLock { $0.machine.cancelRequested }
        let error: any Error =
            expired.load(ordering: .relaxed)
            ? DownloadError.tooSlow(seconds: wholeLimit ?? 0)
            : stalled.load(ordering: .relaxed)
                ? DownloadError.stalled(seconds: stallSeconds ?? 0)
                : cancelled && !(error is CancellationError) ? CancellationError() : error
        run(shared.withLock { $0.machine.end(.failure(error), map: map) })
    }

    /// The body ended.
    func finished() {
        stopStallCheck()
        let map = mapError
        run(shared.withLock { $0.machine.end(.success(()), map: map) })
    }

    /// Carries out the machine's actions, outside the lock. Promises are completed, never leaked; the
    /// client ignores them once the request ended.
    private func run(_ actions: [Machine.Action]) {
        var fedError: (any Error)?
        for action in actions {
            switch action {
            case .feedSink(let sink, let chunk, let gate):
                // A chunk that came before the sink: it goes in first, on this thread.
                var buffer = chunk
                do {
                    try sink(&buffer)
                    guard let gate else { continue }
                    if let rateLimiter, case let wait = rateLimiter.delay(afterReceiving: chunk.readableBytes), wait > 0 {
                        pace(gate, for: wait)
                    } else {
                        markWaiting()
                        gate.succeed()
                    }
                } catch {
                    fedError = error
                    run(shared.withLock { $0.machine.sinkFailed(error) })
                    gate?.fail(error)
                }
            case .resumeHead(let waiter):
                guard
                    let head = shared.withLock({ shared in
                        defer { shared.head = nil }; return shared.head
                    })
                else { continue }
                waiter.resume(returning: head)
            case .failHead(let waiter, let error):
                waiter.resume(throwing: error)
            case .open(let gate):
                markWaiting()
                gate.succeed()
            case .deliver(let chunk, let waiter):
                waiter.resume(returning: chunk)
            case .endIterator(let waiter, let result):
                waiter.resume(with: result.map { nil })
            case .endSink(let waiter, let result):
                waiter.resume(with: fedError.map { .failure($0) } ?? result)
            case .cancelRequest:
                shared.withLock { $0.stop }?()
            }
        }
    }
}

/// Where a ``ResponseBody`` reads from when it is not a plain async sequence.
protocol BodySource: AnyObject, Sendable {
    /// The next chunk, or nil at the end.
    func next() async throws -> ByteBuffer?
    /// Hands every chunk to `sink` in order on the thread that read it; returns at the end.
    func forEach(_ sink: @escaping @Sendable (inout ByteBuffer) throws -> Void) async throws
    /// The body was dropped.
    func abandon()
}
