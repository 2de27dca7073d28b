import PodqServer
import PodqTestSupport
import XCTest

@testable import PodqHTTP

/// When a connection's reads wait for a batch: from the start, again after a fast read, and never
/// across a tick of the clock that saw no read, whatever the order of events.
final class ReadBatchingTests: XCTestCase {
    func testTheBatchIsHalfTheReadSizeAtMostTheLargestAndNoneWhenSmall() throws {
        XCTAssertEqual(try XCTUnwrap(ReadBatching(readSize: 256 << 10)).batch, 128 << 10)
        XCTAssertEqual(try XCTUnwrap(ReadBatching(readSize: 16 << 20)).batch, ReadBatching.largest)
        XCTAssertEqual(try XCTUnwrap(ReadBatching(readSize: 64 << 10)).batch, 32 << 10)
        XCTAssertEqual(try XCTUnwrap(ReadBatching(readSize: 32 << 10)).batch, ReadBatching.smallest)
        XCTAssertNil(ReadBatching(readSize: 32 << 10 - 1), "a batch under 16 KiB is not worth a system call")
        XCTAssertNil(ReadBatching(readSize: 0))
    }

    func testItBatchesWhenOpenedAndStopsAtATickWithoutARead() throws {
        var state = try XCTUnwrap(ReadBatching(readSize: 256 << 10))
        XCTAssertEqual(state.opened(), .batch(128 << 10))
        XCTAssertNil(state.opened(), "once")
        XCTAssertEqual(state.tick(), .unbatch, "no read came in a whole tick: bytes may be waiting")
        XCTAssertNil(state.tick(), "not batching: nothing to say")
    }

    func testAReadInEachTickKeepsTheBatch() throws {
        var state = try XCTUnwrap(ReadBatching(readSize: 256 << 10))
        _ = state.opened()
        for _ in 0..<5 {
            XCTAssertNil(state.read(128 << 10))
            XCTAssertNil(state.tick())
        }
        XCTAssertEqual(state.tick(), .unbatch)
    }

    func testOnlyAFastReadBatchesAgain() throws {
        var state = try XCTUnwrap(ReadBatching(readSize: 256 << 10))
        _ = state.opened()
        _ = state.tick()
        XCTAssertNil(state.read(state.fast - 1), "slower than podq reads: each byte as it comes")
        XCTAssertEqual(state.read(state.fast), .batch(128 << 10))
        XCTAssertEqual(state.tick(), .unbatch, "the read that batched is before the batch: a tick needs one after it")
        XCTAssertEqual(state.read(state.batch), .batch(128 << 10))
        XCTAssertNil(state.read(1))
        XCTAssertNil(state.tick())
    }

    /// Every order of opens, reads of every size and ticks, against what the clock promises: the
    /// changes alternate, starting with a batch; a tick ends the batch exactly when no read came since
    /// the batch began or the clock last ticked; a read while not batching batches exactly when fast.
    func testEveryOrderOfEventsKeepsThePromise() throws {
        var random = SeededGenerator(seed: 45)
        for _ in 0..<2_000 {
            var state = try XCTUnwrap(ReadBatching(readSize: [64 << 10, 256 << 10, 1 << 20].randomElement(using: &random)!))
            var batching = false
            var readSince = false
            for _ in 0..<40 {
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    let change = state.opened()
                    XCTAssertEqual(change, batching ? nil : .batch(state.batch))
                    if !batching { (batching, readSince) = (true, false) }
                case 1:
                    let bytes = Int.random(in: 0...(2 * state.batch), using: &random)
                    let change = state.read(bytes)
                    if !batching && bytes >= state.fast {
                        XCTAssertEqual(change, .batch(state.batch))
                        (batching, readSince) = (true, false)
                    } else {
                        XCTAssertNil(change)
                        readSince = true
                    }
                default:
                    let change = state.tick()
                    if batching && !readSince {
                        XCTAssertEqual(change, .unbatch)
                        batching = false
                    } else {
                        XCTAssertNil(change)
                        readSince = false
                    }
                }
                XCTAssertEqual(state.batching, batching)
            }
        }
    }
}
