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
        _ = m.head(gate: 1)
        return m
    }

    // MARK: - Request and head

    func testRequestThenHead() {
        var m = Machine()
        XCTAssertEqual(text(m.request(headWaiter: "h")), [])
        XCTAssertEqual(text(m.head(gate: 1)), ["resumeHead h", "open 1"], "the caller gets the head; the client reads on")
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
        XCTAssertEqual(text(m.head(gate: 9)), ["open 9"])
    }

    // MARK: - Sink

    func testASinkOpensTheGateAndRunsForEachChunk() {
        var m = atConsumer()
        XCTAssertEqual(text(m.attachSink("s", done: "d")), [], "nothing held: the client already reads")
        XCTAssertEqual(part(&m, "a", gate: 2), ["runSink s"])
        XCTAssertEqual(part(&m, "b", gate: 3), ["runSink s"])
        XCTAssertEqual(text(m.end(.success(()), map: map)), ["endSink d success"])
    }

    func testASinkErrorCancelsAndIsWhatTheEndReports() {
        var m = atConsumer()
        _ = m.attachSink("s", done: "d")
        XCTAssertEqual(text(m.sinkFailed(Failure(text: "disk full"))), ["cancelRequest"])
        XCTAssertEqual(text(m.end(.failure(Failure(text: "cancelled by client")), map: map)), ["endSink d disk full"])
    }

    /// A client that had the last part queued when the sink failed may still report the end.
    func testASinkErrorIsReportedEvenWhenTheClientReportsSuccessAfter() {
        var m = atConsumer()
        _ = m.attachSink("s", done: "d")
        _ = m.sinkFailed(Failure(text: "a web page"))
        XCTAssertEqual(text(m.end(.success(()), map: map)), ["endSink d a web page"])
    }

    func testASecondConsumerIsRefused() {
        var m = atConsumer()
        _ = m.attachSink("s", done: "d")
        XCTAssertEqual(text(m.attachSink("t", done: "e")), ["endSink e readTwice"])
        XCTAssertEqual(text(m.askForChunk("w")), ["endIterator w readTwice"])
    }

    func testASinkAttachedAfterTheEndGetsTheEnd() {
        var m = atConsumer()
        _ = m.end(.failure(Failure(text: "reset")), map: map)
        XCTAssertEqual(text(m.attachSink("s", done: "d")), ["endSink d reset@body"])
    }

    func testAFailureDuringTheBodyIsMappedAsSuch() {
        var m = atConsumer()
        _ = m.attachSink("s", done: "d")
        XCTAssertEqual(text(m.end(.failure(Failure(text: "reset")), map: map)), ["endSink d reset@body"])
    }

    // MARK: - Before a consumer

    func testTheFirstChunkBeforeAConsumerIsHeldAndTheClientWaits() {
        var m = atConsumer()
        XCTAssertEqual(part(&m, "a", gate: 2), [], "held; the client waits for gate 2")
        XCTAssertEqual(text(m.attachSink("s", done: "d")), ["feedSink a to s then 2"], "the sink gets it first, then the client reads on")
        XCTAssertEqual(part(&m, "b", gate: 3), ["runSink s"])

        var n = atConsumer()
        _ = part(&n, "a", gate: 2)
        XCTAssertEqual(text(n.askForChunk("w1")), ["deliver a to w1"], "the iterator gets it; gate 2 opens at the next ask")
        XCTAssertEqual(text(n.askForChunk("w2")), ["open 2"])
    }

    /// A server that sends a little and closes at once: what came before anybody read is not lost.
    func testWhatCameBeforeAConsumerSurvivesAnEarlyEnd() {
        var m = atConsumer()
        _ = part(&m, "a", gate: 2)
        XCTAssertEqual(text(m.end(.failure(Failure(text: "closed")), map: map)), ["open 2"])
        XCTAssertEqual(text(m.attachSink("s", done: "d")), ["feedSink a to s then -", "endSink d closed@body"])

        var n = atConsumer()
        _ = part(&n, "a", gate: 2)
        _ = n.end(.failure(Failure(text: "closed")), map: map)
        XCTAssertEqual(text(n.askForChunk("w1")), ["deliver a to w1"])
        XCTAssertEqual(text(n.askForChunk("w2")), ["endIterator w2 closed@body"])
    }

    // MARK: - Iterator

    func testTheIteratorPullsOneChunkAtATime() {
        var m = atConsumer()
        XCTAssertEqual(text(m.askForChunk("w1")), [], "nothing held yet: the iterator waits")
        XCTAssertEqual(part(&m, "a", gate: 2), ["deliver a to w1"], "its gate stays shut until the next ask")
        XCTAssertEqual(text(m.askForChunk("w2")), ["open 2"])
        XCTAssertEqual(part(&m, "b", gate: 3), ["deliver b to w2"])
        XCTAssertEqual(text(m.end(.success(()), map: map)), ["open 3"])
        XCTAssertEqual(text(m.askForChunk("w3")), ["endIterator w3 success"])
    }

    func testTheEndWakesAWaitingIterator() {
        var m = atConsumer()
        _ = m.askForChunk("w1")
        XCTAssertEqual(text(m.end(.failure(Failure(text: "reset")), map: map)), ["endIterator w1 reset@body"])
    }

    func testAChunkNobodyAskedForIsKeptAndHandedOverEvenAfterTheEnd() {
        var m = Machine(state: .toIterator(pending: nil, gate: nil, waiter: nil))
        XCTAssertEqual(part(&m, "a", gate: 2), [], "kept, and the client waits")
        XCTAssertEqual(text(m.end(.success(()), map: map)), ["open 2"])
        XCTAssertEqual(text(m.askForChunk("w1")), ["deliver a to w1"], "the leftover comes before the end")
        XCTAssertEqual(text(m.askForChunk("w2")), ["endIterator w2 success"])

        var n = Machine(state: .toIterator(pending: nil, gate: nil, waiter: nil))
        _ = part(&n, "a", gate: 2)
        XCTAssertEqual(text(n.askForChunk("w1")), ["open 2", "deliver a to w1"], "taking it lets the client read on")
    }

    func testTwoWaitersAtOnceAreRefused() {
        var m = atConsumer()
        _ = m.askForChunk("w1")
        XCTAssertEqual(text(m.askForChunk("w2")), ["endIterator w2 readTwice"])
        XCTAssertEqual(text(m.attachSink("s", done: "d")), ["endSink d readTwice"])
    }

    // MARK: - Cancel and abandon

    func testACancelAfterTheHeadWithNoConsumerEndsAsCancelled() {
        var m = atConsumer()
        XCTAssertEqual(text(m.abandon()), ["cancelRequest"], "a dropped body cancels the request")
        XCTAssertEqual(text(m.end(.failure(Failure(text: "cancelled by client")), map: map)), [])
        XCTAssertEqual(text(m.attachSink("s", done: "d")), ["endSink d cancelled"])
    }

    func testACancelWhileStreamingIsReportedAsTheTransportSaysIt() {
        var m = atConsumer()
        _ = m.attachSink("s", done: "d")
        XCTAssertEqual(text(m.cancel()), ["cancelRequest"])
        XCTAssertEqual(text(m.end(.failure(Failure(text: "cancelled")), map: map)), ["endSink d cancelled@body"])
        XCTAssertEqual(text(m.abandon()), [], "nothing to cancel once it ended")
    }

    func testASecondRequestIsRefused() {
        var m = atConsumer()
        XCTAssertEqual(text(m.request(headWaiter: "h2")), ["failHead h2 readTwice"])
    }
}
