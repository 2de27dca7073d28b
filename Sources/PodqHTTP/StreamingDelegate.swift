import AsyncHTTPClient
import Dispatch
import FoundationEssentials
import Glibc
import NIOCore
import NIOHTTP1
import Synchronization

/// AsyncHTTPClient's delegate for one request, and the receiver of ``DirectClient``'s: hands the
/// response head to an `async` caller, then delivers the body either to a sink on the network thread
/// (``ResponseBody/forEach(_:)``: no thread hop per chunk, as curl's single loop) or chunk by chunk to
/// an async iterator.
///
/// It is its ``StreamingStateMachine``'s adapter: every callback, call and timer feeds the machine (behind
/// a `Mutex`) an event and carries out the actions it returns after the lock is released. The machine
/// decides; this type owns only what the machine cannot hold: the timers, the way to stop the
/// transfer, and the head between its arrival and its waiter.
///
/// Backpressure: before a consumer attaches, the client reads one chunk and waits with it held (a body
/// sent and closed at once is not lost); a sink runs before the next read, and an iterator's chunk is
/// released when the next one is asked for. A body dropped without being read to the end cancels the
/// request, so a connection is never left half read.
///
/// Clocks (``Limits``): the head has a deadline of its own; the body is timed by a stall clock that runs
/// only while the client waits for the server, from a read let go to the next chunk, so a slow disk or
/// a speed limit is never taken for a stalled server; a feed's whole response has a deadline.
/// Pacing is one step (``readOn(afterTaking:gate:on:)``), for a chunk taken by the sink as it arrives
/// and for one held before the sink came.
final class StreamingDelegate: HTTPClientResponseDelegate, BodySource, Sendable {
    typealias Response = Void
    typealias Sink = @Sendable (inout ByteBuffer) throws -> Void
    typealias Machine = StreamingStateMachine<
        CheckedContinuation<HTTPResponseHead, any Error>, CheckedContinuation<ByteBuffer?, any Error>,
        CheckedContinuation<Void, any Error>, EventLoopPromise<Void>, ByteBuffer, Sink
    >

    /// How long each part of the response may take (seconds; nil: not timed).
    struct Limits: Sendable {
        /// From the request to the head (`response-timeout`): then ``DownloadError/noResponse(seconds:)``.
        var head: Double?
        /// The body without a byte while the client waits (`stall-timeout`): ``DownloadError/stalled(seconds:)``.
        var stall: Double?
        /// The whole response, head and body (what is left of `fetch-timeout` for a feed; nil for media).
        var whole: Double?
        /// The limit ``DownloadError/tooSlow(seconds:)`` names: `fetch-timeout` itself, when this
        /// response had what was left of it after redirects.
        var wholeLimit: Double?

        init(head: Double? = nil, stall: Double? = nil, whole: Double? = nil, wholeLimit: Double? = nil) {
            self.head = head
            self.stall = stall
            self.whole = whole
            self.wholeLimit = wholeLimit ?? whole
        }
    }

    private struct Shared {
        var machine = Machine()
        /// Ends the transfer: AHC's task, or the channel of ``DirectClient``.
        var stop: (@Sendable () -> Void)?
        /// The head, kept from its arrival until its waiter is resumed.
        var head: HTTPResponseHead?
        /// The head's and the whole response's deadlines, and the stall check: stopped at the end.
        var deadlines: [Scheduled<Void>] = []
        var stallCheck: RepeatedTask?
    }

    private let shared = Mutex(Shared())
    private let mapError: @Sendable (any Error, Bool) -> any Error
    let rateLimiter: RateLimiter?
    let limits: Limits

    init(rateLimiter: RateLimiter? = nil, limits: Limits = Limits(), mapError: @escaping @Sendable (any Error, Bool) -> any Error) {
        self.rateLimiter = rateLimiter
        self.limits = limits
        self.mapError = mapError
    }

    /// The time the machine's clocks read: uptime nanoseconds.
    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    private static func nanoseconds(_ seconds: Double) -> TimeAmount { .nanoseconds(Int64(min(seconds * 1e9, 9e18))) }

    /// Starts the head's and the whole response's deadlines on `eventLoop`.
    private func startDeadlines(on eventLoop: any EventLoop) {
        var deadlines: [Scheduled<Void>] = []
        if let head = limits.head {
            let error = DownloadError.noResponse(seconds: head)
            deadlines.append(eventLoop.scheduleTask(in: Self.nanoseconds(head)) { [weak self] in self?.event { $0.headDeadline(error) } })
        }
        if let whole = limits.whole {
            let error = DownloadError.tooSlow(seconds: limits.wholeLimit ?? whole)
            deadlines.append(eventLoop.scheduleTask(in: Self.nanoseconds(whole)) { [weak self] in self?.event { $0.wholeDeadline(error) } })
        }
        keep(deadlines: deadlines)
    }

    /// Checks, a few times per stall period, whether the client has waited for the server too long.
    private func startStallCheck(on eventLoop: any EventLoop) {
        guard let stall = limits.stall else { return }
        let limit = UInt64(stall * 1e9)
        let error = DownloadError.stalled(seconds: stall)
        let period = Self.nanoseconds(min(max(stall / 4, 0.05), 1))
        let check = eventLoop.scheduleRepeatedTask(initialDelay: period, delay: period) { [weak self] repeated in
            guard let self else { return repeated.cancel() }
            self.event { $0.stallCheck(now: Self.now(), limit: limit, error) }
        }
        keep(stallCheck: check)
    }

    /// Keeps timers to stop at the end; stops them at once when the response already ended.
    private func keep(deadlines: [Scheduled<Void>] = [], stallCheck: RepeatedTask? = nil) {
        let late = shared.withLock { shared -> Bool in
            shared.deadlines += deadlines
            if let stallCheck { shared.stallCheck = stallCheck }
            return shared.machine.isFinished
        }
        if late { stopClocks() }
    }

    private func stopClocks() {
        let (deadlines, check) = shared.withLock { shared in
            defer {
                shared.deadlines = []
                shared.stallCheck = nil
            }
            return (shared.deadlines, shared.stallCheck)
        }
        for deadline in deadlines { deadline.cancel() }
        check?.cancel()
    }

    /// Starts `request` on `client` and returns its head.
    func start(_ request: HTTPClient.Request, on client: HTTPClient, eventLoop: any EventLoop) async throws -> HTTPResponseHead {
        try await start(on: eventLoop) {
            let task = client.execute(request: request, delegate: self, eventLoop: .delegateAndChannel(on: eventLoop))
            attach { task.cancel() }
        }
    }

    /// Waits for the head of a transfer that `begin` starts on `eventLoop` (and hands its way to stop
    /// to ``attach(stop:)``); the deadlines run from here.
    func start(on eventLoop: any EventLoop, _ begin: () -> Void) async throws -> HTTPResponseHead {
        startDeadlines(on: eventLoop)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponseHead, any Error>) in
                event { $0.request(headWaiter: continuation) }
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

    /// Cancels the request; a waiting consumer gets `CancellationError`, and a read held for its turn
    /// under the speed limit goes at once.
    func cancel() {
        event { $0.cancel() }
    }

    /// Called when the body is dropped: cancels the request unless it ended.
    func abandon() {
        event { $0.abandon() }
    }

    /// Feeds the machine one event and carries out its actions outside the lock.
    private func event(_ body: (inout Machine) -> [Machine.Action]) {
        run(shared.withLock { body(&$0.machine) })
    }

    // MARK: BodySource

    func forEach(_ sink: @escaping Sink) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                event { $0.attachSink(sink, done: continuation, now: Self.now()) }
            }
        } onCancel: {
            cancel()
        }
    }

    func next() async throws -> ByteBuffer? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ByteBuffer?, any Error>) in
                event { $0.askForChunk(continuation, now: Self.now()) }
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

    // MARK: The response, from AsyncHTTPClient or ``DirectClient``'s channel (on its event loop)

    /// The head came; the returned future completes when the client may read on.
    func received(_ head: HTTPResponseHead, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        startStallCheck(on: eventLoop)
        let gate = eventLoop.makePromise(of: Void.self)
        let now = Self.now()
        run(
            shared.withLock { shared in
                shared.head = head
                return shared.machine.head(gate: gate, now: now)
            })
        return gate.futureResult
    }

    /// A chunk of the body came; the returned future completes when the client may read on, and nil
    /// means at once (a sink took the chunk and no speed limit holds it: the common case, which then
    /// allocates nothing).
    func received(_ buffer: ByteBuffer, on eventLoop: any EventLoop) -> EventLoopFuture<Void>? {
        let action = shared.withLock { $0.machine.bodyPart(buffer) { eventLoop.makePromise(of: Void.self) } }
        switch action {
        case .runSink(let sink):
            // The sink path: the chunk is written here, and the client reads on when this returns.
            var chunk = buffer
            do {
                try sink(&chunk)
            } catch {
                event { $0.sinkFailed(error) }
                return eventLoop.makeFailedFuture(error)
            }
            return readOn(afterTaking: buffer.readableBytes, gate: nil, on: eventLoop)
        case .deliver(let chunk, let waiter, let gate):
            waiter.resume(returning: chunk)
            return gate.futureResult
        case .hold(let gate):
            return gate.futureResult
        case .open(let gate):
            gate.succeed()
            return gate.futureResult
        }
    }

    /// The one place the speed limit applies: the sink took `bytes`, and the client's next read
    /// (`gate`, or a new one when it must wait) goes when the chunk's turn on the shared schedule
    /// comes. Nil: at once, with no gate.
    private func readOn(afterTaking bytes: Int, gate: EventLoopPromise<Void>?, on eventLoop: any EventLoop) -> EventLoopFuture<Void>? {
        let now = Self.now()
        guard let rateLimiter, case let wait = rateLimiter.delay(afterReceiving: bytes), wait > 0 else {
            shared.withLock { $0.machine.readOn(now: now) }
            gate?.succeed()
            return gate?.futureResult
        }
        let gate = gate ?? eventLoop.makePromise(of: Void.self)
        let paced = shared.withLock { shared -> (turn: Int?, actions: [Machine.Action]) in shared.machine.pace(gate, now: now) }
        run(paced.actions)
        if let turn = paced.turn {
            eventLoop.scheduleTask(in: Self.nanoseconds(Double(wait) / 1e9)) { [weak self] in
                self?.event { $0.turnCame(turn, now: Self.now()) }
            }
        }
        return gate.futureResult
    }

    /// The transfer failed.
    func failed(_ error: any Error) {
        stopClocks()
        let map = mapError
        event { $0.end(.failure(error), map: map) }
    }

    /// The body ended.
    func finished() {
        stopClocks()
        let map = mapError
        event { $0.end(.success(()), map: map) }
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
                    if let gate { _ = readOn(afterTaking: chunk.readableBytes, gate: gate, on: gate.futureResult.eventLoop) }
                } catch {
                    fedError = error
                    event { $0.sinkFailed(error) }
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
