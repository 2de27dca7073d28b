/// The states of one streamed response, as ``StreamingDelegate`` drives it: each event returns the
/// actions to carry out, which the delegate runs outside its lock (resuming continuations, opening the
/// client's next read, calling the sink, cancelling the request).
///
/// The clocks are events too: the head's deadline, the whole response's deadline and the stall check
/// come in as events with the time (uptime nanoseconds) and return the cancel; a chunk's turn under the
/// speed limit is a held read (``pace(_:now:)``) that its timer (``turnCame(_:now:)``) or a cancel lets
/// go. The delegate only runs timers and passes their firing in.
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
    /// The error a clock ended the response with (no head in time, a stall, the whole deadline): what
    /// its end reports instead of the cancellation it caused.
    private(set) var timedOut: (any Error)?
    /// Since when the client has waited for the server (uptime ns): set when a read is let go, cleared
    /// when a chunk comes. Nil while a chunk is taken, held or paced: a slow disk, a consumer that has
    /// not asked yet or the speed limit is never taken for a stalled server.
    private(set) var waitingSince: UInt64?
    /// The client's next read, held for its chunk's turn under the speed limit, and that turn's number.
    private var paced: (gate: Gate, turn: Int)?
    private var turns = 0

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

    /// The head came at `now`: its waiter gets it and the client reads on (the stall clock starts).
    mutating func head(gate: Gate, now: UInt64) -> [Action] {
        guard case .awaitingHead(let waiter) = state else { return [.open(gate)] }
        state = .awaitingConsumer(pending: nil, gate: nil)
        waitingSince = now
        return [.resumeHead(waiter), .open(gate)]
    }

    mutating func attachSink(_ sink: Sink, done: EndWaiter, now: UInt64) -> [Action] {
        switch state {
        case .awaitingConsumer(let pending, let gate):
            state = .toSink(sink, done: done)
            // A held chunk goes to the sink first; its gate opens after (``readOn(now:)`` or ``pace(_:now:)``).
            if let pending { return [.feedSink(sink, pending, then: gate)] }
            return opening(gate, now)
        case .finished(let result, let leftover):
            state = .finished(result, leftover: nil)
            return (leftover.map { [Action.feedSink(sink, $0, then: nil)] } ?? []) + [.endSink(done, result)]
        case .idle, .awaitingHead, .toSink, .toIterator:
            return [.endSink(done, .failure(ReadTwice()))]
        }
    }

    mutating func askForChunk(_ waiter: ChunkWaiter, now: UInt64) -> [Action] {
        switch state {
        case .awaitingConsumer(let pending?, let gate):
            state = .toIterator(pending: nil, gate: gate, waiter: nil)
            return [.deliver(pending, to: waiter)]
        case .awaitingConsumer(nil, _):
            state = .toIterator(pending: nil, gate: nil, waiter: waiter)
            return []
        case .toIterator(let pending?, let gate, nil):
            state = .toIterator(pending: nil, gate: nil, waiter: nil)
            return opening(gate, now) + [.deliver(pending, to: waiter)]
        case .toIterator(nil, let gate, nil):
            state = .toIterator(pending: nil, gate: nil, waiter: waiter)
            return opening(gate, now)
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
        waitingSince = nil  // the server sent: the stall clock stops until the client reads on
        switch state {
        case .toSink(let sink, _):
            // A sink that threw never gets another chunk: the request is being cancelled, and a chunk the
            // client had read already (the rest of one socket read) must not reach the file after a
            // refusal (a web page's bytes written past the check that refused them).
            if sinkError != nil { return .open(makeGate()) }
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

    /// The sink threw: the request is cancelled, its end reports this error, and the sink gets no more
    /// chunks.
    mutating func sinkFailed(_ error: any Error) -> [Action] {
        guard case .toSink = state else { return [] }
        sinkError = error
        return [.cancelRequest]
    }

    /// Cancels the request. A read held for its turn under the speed limit is let go at once: at
    /// 10 KB/s a turn is seconds away, and a stop must not wait for it.
    mutating func cancel() -> [Action] {
        if isFinished { return [] }
        cancelRequested = true
        return [.cancelRequest] + releasePaced()
    }

    // MARK: - The clocks

    /// The sink took a chunk at `now` and its turn under the speed limit has come: the client reads on.
    mutating func readOn(now: UInt64) {
        if !isFinished { waitingSince = now }
    }

    /// The sink took a chunk at `now`, and the client's next read (`gate`) waits for its turn under the
    /// speed limit. Returns the turn to pass to ``turnCame(_:now:)`` when its time comes; none (the
    /// read goes at once) when the request was cancelled or ended.
    mutating func pace(_ gate: Gate, now: UInt64) -> (turn: Int?, actions: [Action]) {
        if cancelRequested || isFinished { return (nil, [.open(gate)]) }
        turns += 1
        paced = (gate, turns)
        waitingSince = nil
        return (turns, [])
    }

    /// The time of `turn` came: its read goes, unless a cancel or the end let it go already.
    mutating func turnCame(_ turn: Int, now: UInt64) -> [Action] {
        guard let held = paced, held.turn == turn else { return [] }
        paced = nil
        if !isFinished { waitingSince = now }
        return [.open(held.gate)]
    }

    /// The head's deadline passed: if no head came, the request ends with `error`.
    mutating func headDeadline(_ error: any Error) -> [Action] {
        switch state {
        case .idle, .awaitingHead: timeUp(error)
        case .awaitingConsumer, .toSink, .toIterator, .finished: []
        }
    }

    /// The whole response's deadline passed: it ends with `error` unless it ended.
    mutating func wholeDeadline(_ error: any Error) -> [Action] {
        timeUp(error)
    }

    /// The stall check at `now`: the request ends with `error` when the client has waited for the
    /// server longer than `limit` nanoseconds.
    mutating func stallCheck(now: UInt64, limit: UInt64, _ error: any Error) -> [Action] {
        guard let since = waitingSince, now &- since > limit else { return [] }
        return timeUp(error)
    }

    private mutating func timeUp(_ error: any Error) -> [Action] {
        guard !isFinished, timedOut == nil, sinkError == nil else { return [] }
        timedOut = error
        return cancel()
    }

    private mutating func opening(_ gate: Gate?, _ now: UInt64) -> [Action] {
        guard let gate else { return [] }
        waitingSince = now
        return [.open(gate)]
    }

    private mutating func releasePaced() -> [Action] {
        guard let held = paced else { return [] }
        paced = nil
        return [.open(held.gate)]
    }

    /// The body was dropped before its end: cancel, so a connection is never left half read.
    mutating func abandon() -> [Action] {
        cancel()
    }

    /// The response ended. A failure is reported, in this order, as the sink's error, the clock's that
    /// ended it (``timedOut``), a cancellation when one was asked for (however the client or the
    /// closed connection words it), or else as `map` turns it, knowing whether the body had started.
    mutating func end(_ result: Result<Void, any Error>, map: (any Error, _ duringBody: Bool) -> any Error) -> [Action] {
        let beforeHead: Bool
        if case .awaitingHead = state { beforeHead = true } else { beforeHead = false }
        // A sink that failed ends the body with its error, whatever the client reports after.
        let result = sinkError.map { Result<Void, any Error>.failure($0) } ?? result
        let end: Result<Void, any Error> = result.mapError { error in
            if let sinkError { return sinkError }
            if let timedOut { return timedOut }
            if cancelRequested { return CancellationError() }
            return map(error, !beforeHead)
        }
        waitingSince = nil
        return releasePaced() + ended(end)
    }

    private mutating func ended(_ end: Result<Void, any Error>) -> [Action] {
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
