import PodqServer
import PodqTestSupport
import XCTest

@testable import PodqHTTP

/// When a connection's reads wait for a batch: from the start, again after a fast read, and never
/// across a tick of the clock that saw no read, whatever the order of events.
final class ReadBatchingTests: XCTestCase {
    private static let tick: UInt64 = 100_000_000
    private static let ms: UInt64 = 1_000_000

    private func state(readSize: Int = 256 << 10) throws -> ReadBatching {
        try XCTUnwrap(ReadBatching(readSize: readSize, patience: Self.tick))
    }

    func testTheBatchIsHalfTheReadSizeAtMostTheLargestAndNoneWhenSmall() throws {
        XCTAssertEqual(try state(readSize: 256 << 10).batch, 128 << 10)
        XCTAssertEqual(try state(readSize: 16 << 20).batch, ReadBatching.largest)
        XCTAssertEqual(try state(readSize: 64 << 10).batch, 32 << 10)
        XCTAssertEqual(try state(readSize: 32 << 10).batch, ReadBatching.smallest)
        XCTAssertNil(ReadBatching(readSize: 32 << 10 - 1, patience: Self.tick), "a batch under 16 KiB is not worth a system call")
        XCTAssertNil(ReadBatching(readSize: 0, patience: Self.tick))
        XCTAssertNil(ReadBatching(readSize: 256 << 10, patience: 0))
    }

    func testItBatchesWhenOpenedAndStopsAtATickWithoutARead() throws {
        var state = try state()
        XCTAssertEqual(state.opened(), .batch(128 << 10))
        XCTAssertNil(state.opened(), "once")
        XCTAssertEqual(state.tick(at: Self.tick), .unbatch, "no read came in a whole tick: bytes may be waiting")
        XCTAssertNil(state.tick(at: 2 * Self.tick), "not batching: nothing to say")
    }

    func testAReadInEachTickKeepsTheBatch() throws {
        var state = try state()
        _ = state.opened()
        for n in UInt64(1)...5 {
            XCTAssertNil(state.read(128 << 10, at: n * Self.tick - 1))
            XCTAssertNil(state.tick(at: n * Self.tick))
        }
        XCTAssertEqual(state.tick(at: 6 * Self.tick), .unbatch)
    }

    /// After a batch ended, the first read holds what waited meanwhile: large at any speed. Only a read
    /// that shows the bytes coming fast enough to fill a batch within a tick batches again.
    func testOnlyBytesComingFastBatchAgainNotTheBacklogOfASlowConnection() throws {
        var state = try state()
        _ = state.opened()
        XCTAssertEqual(state.tick(at: Self.tick), .unbatch)
        // 400 KB/s: 80 KB waited over the two tenths since: large, but slower than a batch a tick.
        XCTAssertNil(state.read(80_000, at: 3 * Self.tick))
        XCTAssertNil(state.read(4_000, at: 3 * Self.tick + 10 * Self.ms))
        XCTAssertNil(state.read(80_000, at: 5 * Self.tick), "two tenths of a slow connection")
        // 64 KiB in 40 ms: 1.6 MB/s, a batch (128 KiB) in 80 ms.
        XCTAssertEqual(state.read(64 << 10, at: 5 * Self.tick + 40 * Self.ms), .batch(128 << 10))
        XCTAssertEqual(state.tick(at: 6 * Self.tick + 40 * Self.ms), .unbatch, "a tick needs a read after the batch began")
        XCTAssertNil(state.read(state.fast - 1, at: 6 * Self.tick + 41 * Self.ms), "under half a batch: never")
        XCTAssertEqual(state.read(state.fast, at: 6 * Self.tick + 41 * Self.ms), .batch(128 << 10), "at once: as fast as can be")
    }

    /// Every order of opens, reads of every size at every pace and ticks, against what the clock
    /// promises: the changes alternate, starting with a batch; a tick ends the batch exactly when no
    /// read came since the batch began or the clock last ticked; a read while not batching batches
    /// exactly when it is fast (half a batch or more, at a pace that fills a batch within a tick,
    /// timed from the read before it or from the end of the batch).
    func testEveryOrderOfEventsKeepsThePromise() throws {
        var random = SeededGenerator(seed: 45)
        for _ in 0..<2_000 {
            var state = try state(readSize: [64 << 10, 256 << 10, 1 << 20].randomElement(using: &random)!)
            var batching = false
            var readSince = false
            var last: UInt64?
            var now: UInt64 = 0
            for _ in 0..<40 {
                now += UInt64.random(in: 0...(2 * Self.tick), using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    let change = state.opened()
                    XCTAssertEqual(change, batching ? nil : .batch(state.batch))
                    if !batching { (batching, readSince) = (true, false) }
                case 1:
                    let bytes = Int.random(in: 0...(2 * state.batch), using: &random)
                    let change = state.read(bytes, at: now)
                    let quick = last.map { Double(bytes) / Double(now - $0) >= Double(state.batch) / Double(Self.tick) } ?? false
                    if !batching && bytes >= state.fast && quick {
                        XCTAssertEqual(change, .batch(state.batch))
                        (batching, readSince) = (true, false)
                    } else {
                        XCTAssertNil(change)
                        readSince = true
                    }
                    last = now
                default:
                    let change = state.tick(at: now)
                    if batching && !readSince {
                        XCTAssertEqual(change, .unbatch)
                        batching = false
                        last = now
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
