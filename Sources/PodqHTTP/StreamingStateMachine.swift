/// The states of one streamed response, as ``StreamingDelegate`` drives it: each event returns the
/// actions to carry out, which the delegate runs outside its lock (resuming continuations, opening the
/// client's next read, calling the sink, cancelling the request).
///
/// Generic over who waits and what flows, so tests drive it with plain values: the delegate uses
/// continuations for the waiters, `EventLoopPromise`s for the gates and `ByteBuffer`s for chunks.
///
/// ```
/// idle ─request─► awaitingHead ─head─► awaitingConsumer ─attach sink──► toSink ──────────┐
///                     │                      └─ask for a chunk─► toIterator ─────────────┤
///                     └──────────────────── end (success, error, cancel) ───────────────► finished
/// ```
struct StreamingStateMachine<HeadWaiter, ChunkWaiter, EndWaiter, Gate, Chunk, Sink> {
    enum State {
        /// Nothing sent yet. Valid events: `request`, `cancel`.
        case idle
        /// The request is out; `waiter` wants the head. Valid: `head`, `end`, `cancel`.
        case awaitingHead(HeadWaiter)
        /// The head was handed over and the client reads on; the first chunk to arrive before a
        /// consumer is held as `pending`, and the client waits (`gate`) until a consumer takes it. So a
        /// body the server sends and closes at once is not lost before anybody reads it.
        /// Valid: `bodyPart`, `attachSink`, `askForChunk`, `end`, `cancel`, `abandon`.
        case awaitingConsumer(pending: Chunk?, gate: Gate?)
        /// Every chunk goes to `sink` on the network thread; `done` waits for the end.
        /// Valid: `bodyPart`, `sinkFailed`, `end`, `cancel`.
        case toSink(Sink, done: EndWaiter)
        /// Chunks are pulled one at a time: `waiter` wants the next chunk, `gate` opens the client's next
        /// read at the next ask. The client reads only through an open gate, so a chunk comes when
        /// somebody waits; one that comes otherwise is kept as `pending`, never dropped.
        /// Valid: `bodyPart`, `askForChunk`, `end`, `cancel`, `abandon`.
        case toIterator(pending: Chunk?, gate: Gate?, waiter: ChunkWaiter?)
        /// The response ended with `result`; a chunk the iterator had not taken yet is still handed over.
        case finished(Result<Void, any Error>, leftover: Chunk?)
    }

    enum Action {
        /// Hand `chunk` to `sink` now (a chunk held before the sink came), then open `gate` (nil: none).
        case feedSink(Sink, Chunk, then: Gate?)
        case resumeHead(HeadWaiter)
        case failHead(HeadWaiter, any Error)
        /// Let the client read on.
        case open(Gate)
        case deliver(Chunk, to: ChunkWaiter)
        case endIterator(ChunkWaiter, Result<Void, any Error>)
        case endSink(EndWaiter, Result<Void, any Error>)
        /// Cancel the request (if it exists yet).
        case cancelRequest
    }

    /// Read twice, or in two ways: a programming error, reported as an error, not a crash.
    struct ReadTwice: Error {}

    private(set) var state: State
    /// A cancel was asked for: a request made later is cancelled at once.
    private(set) var cancelRequested = false
    private var sinkError: (any Error)?

    /// A machine in `state` (`idle` for a new request; tests start elsewhere).
    init(state: State = .idle) {
        self.state = state
    }

    /// True once the response ended.
    var isFinished: Bool {
        if case .finished = state { true } else { false }
    }

    mutating func request(headWaiter: HeadWaiter) -> [Action] {
        guard case .idle = state else { return [.failHead(headWaiter, ReadTwice())] }
        state = .awaitingHead(headWaiter)
        return cancelRequested ? [.cancelRequest] : []
    }

    mutating func head(gate: Gate) -> [Action] {
        guard case .awaitingHead(let waiter) = state else { return [.open(gate)] }
        state = .awaitingConsumer(pending: nil, gate: nil)
        return [.resumeHead(waiter), .open(gate)]
    }

    mutating func attachSink(_ sink: Sink, done: EndWaiter) -> [Action] {
        switch state {
        case .awaitingConsumer(let pending, let gate):
            state = .toSink(sink, done: done)
            if let pending { return [.feedSink(sink, pending, then: gate)] }
            return gate.map { [.open($0)] } ?? []
        case .finished(let result, let leftover):
            state = .finished(result, leftover: nil)
            return (leftover.map { [Action.feedSink(sink, $0, then: nil)] } ?? []) + [.endSink(done, result)]
        case .idle, .awaitingHead, .toSink, .toIterator:
            return [.endSink(done, .failure(ReadTwice()))]
        }
    }

    mutating func askForChunk(_ waiter: ChunkWaiter) -> [Action] {
        switch state {
        case .awaitingConsumer(let pending?, let gate):
            state = .toIterator(pending: nil, gate: gate, waiter: nil)
            return [.deliver(pending, to: waiter)]
        case .awaitingConsumer(nil, _):
            state = .toIterator(pending: nil, gate: nil, waiter: waiter)
            return []
        case .toIterator(let pending?, let gate, nil):
            state = .toIterator(pending: nil, gate: nil, waiter: nil)
            return (gate.map { [Action.open($0)] } ?? []) + [.deliver(pending, to: waiter)]
        case .toIterator(nil, let gate, nil):
            state = .toIterator(pending: nil, gate: nil, waiter: waiter)
            return gate.map { [.open($0)] } ?? []
        case .finished(let result, let leftover?):
            state = .finished(result, leftover: nil)
            return [.deliver(leftover, to: waiter)]
        case .finished(let result, nil):
            return [.endIterator(waiter, result)]
        case .idle, .awaitingHead, .toSink, .toIterator(_, _, .some):
            return [.endIterator(waiter, .failure(ReadTwice()))]
        }
    }

    /// What to do with a chunk of the body (one per read: no array, and no gate made for the sink).
    enum BodyPartAction {
        /// Hand it to the sink on this thread; the client reads on when the sink returns.
        case runSink(Sink)
        /// Give it to the waiting iterator; the client reads on when `gate` opens (the next ask).
        case deliver(Chunk, to: ChunkWaiter, gate: Gate)
        /// Keep it (nobody asked yet); the client waits for `gate`.
        case hold(Gate)
        /// Not expected now: let the client go on to its end.
        case open(Gate)
    }

    /// A chunk arrived; `makeGate` is called only when the client must wait for something other than
    /// the sink.
    mutating func bodyPart(_ chunk: Chunk, makeGate: () -> Gate) -> BodyPartAction {
        switch state {
        case .toSink(let sink, _):
            return .runSink(sink)
        case .awaitingConsumer(nil, nil):
            let gate = makeGate()
            state = .awaitingConsumer(pending: chunk, gate: gate)
            return .hold(gate)
        case .toIterator(nil, nil, let waiter?):
            let gate = makeGate()
            state = .toIterator(pending: nil, gate: gate, waiter: nil)
            return .deliver(chunk, to: waiter, gate: gate)
        case .toIterator(nil, nil, nil):
            let gate = makeGate()
            state = .toIterator(pending: chunk, gate: gate, waiter: nil)
            return .hold(gate)
        case .idle, .awaitingHead, .awaitingConsumer, .toIterator, .finished:
            return .open(makeGate())
        }
    }

    /// The sink threw: the request is cancelled and its end reports this error.
    mutating func sinkFailed(_ error: any Error) -> [Action] {
        guard case .toSink = state else { return [] }
        sinkError = error
        return [.cancelRequest]
    }

    mutating func cancel() -> [Action] {
        if isFinished { return [] }
        cancelRequested = true
        return [.cancelRequest]
    }

    /// The body was dropped before its end: cancel, so a connection is never left half read.
    mutating func abandon() -> [Action] {
        cancel()
    }

    /// The response ended. `map` turns a failure into the error to report, knowing whether the body
    /// had started (a cancel after the head with no consumer yet is a plain cancellation).
    mutating func end(_ result: Result<Void, any Error>, map: (any Error, _ duringBody: Bool) -> any Error) -> [Action] {
        let beforeHead: Bool
        if case .awaitingHead = state { beforeHead = true } else { beforeHead = false }
        var noConsumer = false
        if case .awaitingConsumer = state { noConsumer = true }
        // A sink that failed ends the body with its error, whatever the client reports after.
        let result = sinkError.map { Result<Void, any Error>.failure($0) } ?? result
        let end: Result<Void, any Error> = result.mapError { error in
            if let sinkError { return sinkError }
            if cancelRequested && noConsumer { return CancellationError() }
            return map(error, !beforeHead)
        }
        switch state {
        case .idle:
            state = .finished(end, leftover: nil)
            return []
        case .awaitingHead(let waiter):
            state = .finished(end, leftover: nil)
            if case .failure(let error) = end { return [.failHead(waiter, error)] }
            return [.failHead(waiter, ReadTwice())]
        case .awaitingConsumer(let pending, let gate):
            state = .finished(end, leftover: pending)
            return gate.map { [.open($0)] } ?? []
        case .toSink(_, let done):
            state = .finished(end, leftover: nil)
            return [.endSink(done, end)]
        case .toIterator(let pending, let gate, let waiter):
            state = .finished(end, leftover: pending)
            return (gate.map { [Action.open($0)] } ?? []) + (waiter.map { [Action.endIterator($0, end)] } ?? [])
        case .finished:
            return []
        }
    }
}
