import PodqCore
import XCTest

@testable import PodqHTTP

/// Every transition of the streamed response's state machine, with plain values for the waiters
/// (strings), the gates (numbers) and the chunks (strings).
final class StreamingStateMachineTests: XCTestCase {
    typealias Machine = StreamingStateMachine<String, String, String, Int, String, String>

    private struct Failure: Error, Equatable { var text: String }

    /// The actions as text, to compare.
    private func text(_ actions: [Machine.Action]) -> [String] {
        actions.map { action in
            switch action {
            case .feedSink(let sink, let c, let g): "feedSink \(c) to \(sink) then \(g.map(String.init) ?? "-")"
            case .resumeHead(let w): "resumeHead \(w)"
            case .failHead(let w, let e): "failHead \(w) \(name(e))"
            case .open(let g): "open \(g)"
            case .deliver(let c, let w): "deliver \(c) to \(w)"
            case .endIterator(let w, let r): "endIterator \(w) \(name(r))"
            case .endSink(let w, let r): "endSink \(w) \(name(r))"
            case .cancelRequest: "cancelRequest"
            }
        }
    }

    /// A chunk's action as text; `gate` is the gate the machine may make.
    private func part(_ m: inout Machine, _ chunk: String, gate: Int) -> [String] {
        switch m.bodyPart(chunk, makeGate: { gate }) {
        case .runSink(let s): ["runSink \(s)"]
        case .deliver(let c, let w, _): ["deliver \(c) to \(w)"]
        case .hold: []
        case .open(let g): ["open \(g)"]
        }
    }

    private func name(_ result: Result<Void, any Error>) -> String {
        switch result {
        case .success: "success"
        case .failure(let e): name(e)
        }
    }

    private func name(_ error: any Error) -> String {
        switch error {
        case let f as Failure: f.text
        case is CancellationError: "cancelled"
        case is Machine.ReadTwice: "readTwice"
        default: "\(error)"
        }
    }

    /// Mapping that marks where the failure happened.
    private let map: (any Error, Bool) -> any Error = { error, duringBody in
        Failure(text: "\((error as? Failure)?.text ?? "?")\(duringBody ? "@body" : "@head")")
    }

    private func atConsumer() -> Machine {
        var m = Machine()
        _ = m.request(headWaiter: "h")
        _ = m.head(gate: 1, now: 0)
        return m
    }

    // MARK: - Request and head

    func testRequestThenHead() {
        var m = Machine()
        XCTAssertEqual(text(m.request(headWaiter: "h")), [])
        XCTAssertEqual(text(m.head(gate: 1, now: 0)), ["resumeHead h", "open 1"], "the caller gets the head; the client reads on")
        guard case .awaitingConsumer(nil, nil) = m.state else { return XCTFail("\(m.state)") }
    }

    func testACancelBeforeTheRequestCancelsItAtOnce() {
        var m = Machine()
        XCTAssertEqual(text(m.cancel()), ["cancelRequest"])
        XCTAssertEqual(text(m.request(headWaiter: "h")), ["cancelRequest"])
    }

    func testAFailureBeforeTheHeadFailsTheHeadWaiter() {
        var m = Machine()
        _ = m.request(headWaiter: "h")
        XCTAssertEqual(text(m.end(.failure(Failure(text: "refused")), map: map)), ["failHead h refused@head"])
        XCTAssertTrue(m.isFinished)
        XCTAssertEqual(text(m.cancel()), [], "nothing to cancel once it ended")
    }

    func testAHeadThatArrivesAfterTheEndOnlyOpensItsGate() {
        var m = Machine()
        _ = m.request(headWaiter: "h")
        _ = m.end(.failure(Failure(text: "x")), map: map)
        XCTAssertEqual(text(m.head(gate: 9, now: 0)), ["open 9"])
    }

    // MARK: - Sink

    func testASinkOpensTheGateAndRunsForEachChunk() {
        var m = atConsumer()
        XCTAssertEqual(text(m.attachSink("s", done: "d", now: 0)), [], "nothing held: the client already reads")
        XCTAssertEqual(part(&m, "a", gate: 2), ["runSink s"])
        XCTAssertEqual(part(&m, "b", gate: 3), ["runSink s"])
        XCTAssertEqual(text(m.end(.success(()), map: map)), ["endSink d success"])
    }

    func testASinkErrorCancelsAndIsWhatTheEndReports() {
        var m = atConsumer()
        _ = m.attachSink("s", done: "d", now: 0)
        XCTAssertEqual(text(m.sinkFailed(Failure(text: "disk full"))), ["cancelRequest"])
        XCTAssertEqual(text(m.end(.failure(Failure(text: "cancelled by client")), map: map)), ["endSink d disk full"])
    }

    /// A client that read more than one chunk at once hands the next one over after the sink threw: it
    /// never reaches the sink (a refused web page's bytes would be written past the refusal).
    func testNoChunkReachesASinkAfterItThrew() {
        var m = atConsumer()
        _ = m.attachSink("s", done: "d", now: 0)
        XCTAssertEqual(part(&m, "a", gate: 2), ["runSink s"])
        _ = m.sinkFailed(Failure(text: "a web page"))
        XCTAssertEqual(part(&m, "b", gate: 3), ["open 3"])
        XCTAssertEqual(part(&m, "c", gate: 4), ["open 4"])
        XCTAssertEqual(text(m.end(.success(()), map: map)), ["endSink d a web page"])
    }

    /// A client that had the last part queued when the sink failed may still report the end.
    func testASinkErrorIsReportedEvenWhenTheClientReportsSuccessAfter() {
        var m = atConsumer()
        _ = m.attachSink("s", done: "d", now: 0)
        _ = m.sinkFailed(Failure(text: "a web page"))
        XCTAssertEqual(text(m.end(.success(()), map: map)), ["endSink d a web page"])
    }

    func testASecondConsumerIsRefused() {
        var m = atConsumer()
        _ = m.attachSink("s", done: "d", now: 0)
        XCTAssertEqual(text(m.attachSink("t", done: "e", now: 0)), ["endSink e readTwice"])
        XCTAssertEqual(text(m.askForChunk("w", now: 0)), ["endIterator w readTwice"])
    }

    func testASinkAttachedAfterTheEndGetsTheEnd() {
        var m = atConsumer()
        _ = m.end(.failure(Failure(text: "reset")), map: map)
        XCTAssertEqual(text(m.attachSink("s", done: "d", now: 0)), ["endSink d reset@body"])
    }

    func testAFailureDuringTheBodyIsMappedAsSuch() {
        var m = atConsumer()
        _ = m.attachSink("s", done: "d", now: 0)
        XCTAssertEqual(text(m.end(.failure(Failure(text: "reset")), map: map)), ["endSink d reset@body"])
    }

    // MARK: - Before a consumer

    func testTheFirstChunkBeforeAConsumerIsHeldAndTheClientWaits() {
        var m = atConsumer()
        XCTAssertEqual(part(&m, "a", gate: 2), [], "held; the client waits for gate 2")
        XCTAssertEqual(text(m.attachSink("s", done: "d", now: 0)), ["feedSink a to s then 2"], "the sink gets it first, then the client reads on")
        XCTAssertEqual(part(&m, "b", gate: 3), ["runSink s"])

        var n = atConsumer()
        _ = part(&n, "a", gate: 2)
        XCTAssertEqual(text(n.askForChunk("w1", now: 0)), ["deliver a to w1"], "the iterator gets it; gate 2 opens at the next ask")
        XCTAssertEqual(text(n.askForChunk("w2", now: 0)), ["open 2"])
    }

    /// A server that sends a little and closes at once: what came before anybody read is not lost.
    func testWhatCameBeforeAConsumerSurvivesAnEarlyEnd() {
        var m = atConsumer()
        _ = part(&m, "a", gate: 2)
        XCTAssertEqual(text(m.end(.failure(Failure(text: "closed")), map: map)), ["open 2"])
        XCTAssertEqual(text(m.attachSink("s", done: "d", now: 0)), ["feedSink a to s then -", "endSink d closed@body"])

        var n = atConsumer()
        _ = part(&n, "a", gate: 2)
        _ = n.end(.failure(Failure(text: "closed")), map: map)
        XCTAssertEqual(text(n.askForChunk("w1", now: 0)), ["deliver a to w1"])
        XCTAssertEqual(text(n.askForChunk("w2", now: 0)), ["endIterator w2 closed@body"])
    }

    // MARK: - Iterator

    func testTheIteratorPullsOneChunkAtATime() {
        var m = atConsumer()
        XCTAssertEqual(text(m.askForChunk("w1", now: 0)), [], "nothing held yet: the iterator waits")
        XCTAssertEqual(part(&m, "a", gate: 2), ["deliver a to w1"], "its gate stays shut until the next ask")
        XCTAssertEqual(text(m.askForChunk("w2", now: 0)), ["open 2"])
        XCTAssertEqual(part(&m, "b", gate: 3), ["deliver b to w2"])
        XCTAssertEqual(text(m.end(.success(()), map: map)), ["open 3"])
        XCTAssertEqual(text(m.askForChunk("w3", now: 0)), ["endIterator w3 success"])
    }

    func testTheEndWakesAWaitingIterator() {
        var m = atConsumer()
        _ = m.askForChunk("w1", now: 0)
        XCTAssertEqual(text(m.end(.failure(Failure(text: "reset")), map: map)), ["endIterator w1 reset@body"])
    }

    func testAChunkNobodyAskedForIsKeptAndHandedOverEvenAfterTheEnd() {
        var m = Machine(state: .toIterator(pending: nil, gate: nil, waiter: nil))
        XCTAssertEqual(part(&m, "a", gate: 2), [], "kept, and the client waits")
        XCTAssertEqual(text(m.end(.success(()), map: map)), ["open 2"])
        XCTAssertEqual(text(m.askForChunk("w1", now: 0)), ["deliver a to w1"], "the leftover comes before the end")
        XCTAssertEqual(text(m.askForChunk("w2", now: 0)), ["endIterator w2 success"])

        var n = Machine(state: .toIterator(pending: nil, gate: nil, waiter: nil))
        _ = part(&n, "a", gate: 2)
        XCTAssertEqual(text(n.askForChunk("w1", now: 0)), ["open 2", "deliver a to w1"], "taking it lets the client read on")
    }

    func testTwoWaitersAtOnceAreRefused() {
        var m = atConsumer()
        _ = m.askForChunk("w1", now: 0)
        XCTAssertEqual(text(m.askForChunk("w2", now: 0)), ["endIterator w2 readTwice"])
        XCTAssertEqual(text(m.attachSink("s", done: "d", now: 0)), ["endSink d readTwice"])
    }

    // MARK: - Cancel and abandon

    func testACancelAfterTheHeadWithNoConsumerEndsAsCancelled() {
        var m = atConsumer()
        XCTAssertEqual(text(m.abandon()), ["cancelRequest"], "a dropped body cancels the request")
        XCTAssertEqual(text(m.end(.failure(Failure(text: "cancelled by client")), map: map)), [])
        XCTAssertEqual(text(m.attachSink("s", done: "d", now: 0)), ["endSink d cancelled"])
    }

    /// A cancel asked for is reported as a cancellation, however the client or the closed connection
    /// words the end it causes (a body cut short, a reset).
    func testACancelWhileStreamingIsReportedAsACancellation() {
        var m = atConsumer()
        _ = m.attachSink("s", done: "d", now: 0)
        XCTAssertEqual(text(m.cancel()), ["cancelRequest"])
        XCTAssertEqual(text(m.end(.failure(Failure(text: "body cut short")), map: map)), ["endSink d cancelled"])
        XCTAssertEqual(text(m.abandon()), [], "nothing to cancel once it ended")
    }

    func testASecondRequestIsRefused() {
        var m = atConsumer()
        XCTAssertEqual(text(m.request(headWaiter: "h2")), ["failHead h2 readTwice"])
    }

    // MARK: - Clocks: the head's deadline, the whole deadline, the stall check

    func testTheHeadsDeadlineEndsARequestWithNoHeadAndNothingElse() {
        var m = Machine()
        _ = m.request(headWaiter: "h")
        XCTAssertEqual(text(m.headDeadline(Failure(text: "no head in 30 s"))), ["cancelRequest"])
        XCTAssertEqual(
            text(m.end(.failure(Failure(text: "cancelled by client")), map: map)), ["failHead h no head in 30 s"],
            "the end says the deadline, not the cancel it caused")

        var early = Machine()
        XCTAssertEqual(text(early.headDeadline(Failure(text: "late"))), ["cancelRequest"], "before the request is out")
        XCTAssertEqual(text(early.request(headWaiter: "h")), ["cancelRequest"], "the request made after is cancelled at once")

        // Once the head came, its deadline is over: the body has its own clocks.
        for start in [atConsumer(), streaming(), iterating()] {
            var n = start
            XCTAssertEqual(text(n.headDeadline(Failure(text: "late"))), [])
            XCTAssertFalse(n.cancelRequested)
        }
        var ended = atConsumer()
        _ = ended.end(.success(()), map: map)
        XCTAssertEqual(text(ended.headDeadline(Failure(text: "late"))), [])
    }

    func testTheWholeDeadlineEndsTheResponseWhereverItIs() {
        for (name, start) in [("before the head", requested()), ("no consumer", atConsumer()), ("sink", streaming()), ("iterator", iterating())] {
            var m = start
            XCTAssertEqual(text(m.wholeDeadline(Failure(text: "too slow"))), ["cancelRequest"], name)
            let ends = text(m.end(.failure(Failure(text: "cancelled by client")), map: map))
            XCTAssertTrue(ends.allSatisfy { !$0.contains("cancelled") }, "\(name): \(ends)")
            XCTAssertEqual(text(m.wholeDeadline(Failure(text: "again"))), [], "\(name): once ended, nothing")
        }
        var s = streaming()
        _ = s.wholeDeadline(Failure(text: "too slow"))
        XCTAssertEqual(text(s.end(.failure(Failure(text: "reset")), map: map)), ["endSink d too slow"])
        var i = iterating()
        _ = i.wholeDeadline(Failure(text: "too slow"))
        XCTAssertEqual(text(i.end(.failure(Failure(text: "reset")), map: map)), ["endIterator w too slow"])
    }

    func testTheFirstClockToEndItIsTheOneReported() {
        var m = streaming()
        _ = m.stallCheck(now: 100, limit: 10, Failure(text: "stalled"))
        XCTAssertEqual(text(m.wholeDeadline(Failure(text: "too slow"))), [], "already ending")
        XCTAssertEqual(text(m.end(.failure(Failure(text: "x")), map: map)), ["endSink d stalled"])

        var n = streaming()
        _ = n.sinkFailed(Failure(text: "disk full"))
        XCTAssertEqual(text(n.wholeDeadline(Failure(text: "too slow"))), [], "the sink's error ends it")
        XCTAssertEqual(text(n.end(.failure(Failure(text: "x")), map: map)), ["endSink d disk full"])
    }

    /// The stall clock runs only while the client waits for the server: from a read let go to the
    /// next chunk, at every point a read is let go.
    func testTheStallClockRunsOnlyWhileTheClientWaitsForTheServer() {
        let stalled = Failure(text: "stalled")
        var m = Machine()
        _ = m.request(headWaiter: "h")
        XCTAssertNil(m.waitingSince, "before the head: the head's own deadline")
        XCTAssertEqual(text(m.stallCheck(now: 1_000, limit: 10, stalled)), [])
        _ = m.head(gate: 1, now: 100)
        XCTAssertEqual(m.waitingSince, 100, "the client reads on after the head")
        XCTAssertEqual(text(m.stallCheck(now: 110, limit: 10, stalled)), [], "exactly the limit is not over it")
        _ = part(&m, "a", gate: 2)
        XCTAssertNil(m.waitingSince, "a chunk came; it is held for a consumer: nobody waits for the server")
        XCTAssertEqual(text(m.stallCheck(now: 10_000, limit: 10, stalled)), [], "a consumer slow to come is not a stall")
        _ = m.attachSink("s", done: "d", now: 10_000)
        XCTAssertNil(m.waitingSince, "the held chunk goes to the sink first")
        m.readOn(now: 10_005)
        XCTAssertEqual(m.waitingSince, 10_005)
        _ = part(&m, "b", gate: 3)
        XCTAssertNil(m.waitingSince, "the sink takes it: a slow disk is not a stall")
        m.readOn(now: 20_000)
        XCTAssertEqual(text(m.stallCheck(now: 20_011, limit: 10, stalled)), ["cancelRequest"])
        XCTAssertEqual(text(m.end(.failure(Failure(text: "cancelled by client")), map: map)), ["endSink d stalled"])

        // The iterator: its gate opens at the next ask, and the clock with it.
        var n = atConsumer()
        _ = n.askForChunk("w1", now: 5)
        _ = part(&n, "a", gate: 2)
        XCTAssertEqual(text(n.stallCheck(now: 1_000, limit: 10, stalled)), [], "the consumer has the chunk; nobody reads")
        _ = n.askForChunk("w2", now: 1_000)
        XCTAssertEqual(n.waitingSince, 1_000)
        XCTAssertEqual(text(n.stallCheck(now: 1_011, limit: 10, stalled)), ["cancelRequest"])
    }

    // MARK: - The speed limit's turn

    func testAPacedReadGoesWhenItsTurnComesAndTheClockStartsThen() {
        var m = streaming()
        _ = part(&m, "a", gate: 2)
        let (turn, actions) = m.pace(7, now: 50)
        XCTAssertEqual(text(actions), [], "held for its turn")
        XCTAssertNil(m.waitingSince, "waiting for the speed limit is not waiting for the server")
        XCTAssertEqual(text(m.stallCheck(now: 10_000, limit: 10, Failure(text: "stalled"))), [])
        XCTAssertEqual(text(m.turnCame(try! XCTUnwrap(turn), now: 10_000)), ["open 7"])
        XCTAssertEqual(m.waitingSince, 10_000)
        XCTAssertEqual(text(m.turnCame(turn!, now: 10_001)), [], "a turn goes once")
    }

    /// A stop never waits for a turn: a cancel, a deadline and the end each let the held read go, and
    /// the turn's timer, coming later, does nothing.
    func testACancelADeadlineOrTheEndLetsAHeldReadGoAtOnce() {
        let stops: [(String, (inout Machine) -> [Machine.Action])] = [
            ("cancel", { $0.cancel() }),
            ("abandon", { $0.abandon() }),
            ("whole deadline", { $0.wholeDeadline(Failure(text: "too slow")) }),
            ("end", { $0.end(.failure(Failure(text: "reset")), map: self.map) }),
        ]
        for (name, stop) in stops {
            var m = streaming()
            _ = part(&m, "a", gate: 2)
            let turn = m.pace(7, now: 0).turn
            XCTAssertTrue(text(stop(&m)).contains("open 7"), name)
            XCTAssertEqual(text(m.turnCame(turn!, now: 1)), [], "\(name): the timer finds it gone")
        }
        var m = streaming()
        _ = m.cancel()
        let late = m.pace(8, now: 0)
        XCTAssertNil(late.turn)
        XCTAssertEqual(text(late.actions), ["open 8"], "after a cancel, no read waits for its turn")
    }

    func testOnlyTheHeldTurnOpens() {
        var m = streaming()
        let first = m.pace(7, now: 0).turn!
        XCTAssertEqual(text(m.turnCame(first, now: 1)), ["open 7"])
        let second = m.pace(8, now: 2).turn!
        XCTAssertNotEqual(first, second)
        XCTAssertEqual(text(m.turnCame(first, now: 3)), [], "a stale timer opens nothing")
        XCTAssertEqual(text(m.turnCame(second, now: 4)), ["open 8"])
    }

    private func requested() -> Machine {
        var m = Machine()
        _ = m.request(headWaiter: "h")
        return m
    }

    private func streaming() -> Machine {
        var m = atConsumer()
        _ = m.attachSink("s", done: "d", now: 0)
        return m
    }

    private func iterating() -> Machine {
        var m = atConsumer()
        _ = m.askForChunk("w", now: 0)
        return m
    }
}
