import PodqCore
import PodqTestAssertions
import PodqTestSupport
import Synchronization
import XCTest

@testable import PodqHTTP

/// The read sizes podq's connections share: the largest while the budget lasts, halving to what is
/// left, the smallest once it is spent, and every share given back on close.
final class ReceiveBudgetTests: XCTestCase {
    func testTheFirstConnectionsReadTheLargestThenHalvesThenTheSmallest() {
        let budget = ReceiveBudget(total: 640 << 10, largest: 256 << 10, smallest: 64 << 10)
        let grants = (0..<5).map { _ in budget.reserve() }
        XCTAssertEqual(grants.map(\.readSize), [256 << 10, 256 << 10, 128 << 10, 64 << 10, 64 << 10])
        XCTAssertEqual(
            grants.map(\.taken), [256 << 10, 256 << 10, 128 << 10, 0, 0],
            "the fourth finds 0 left: it reads the smallest and takes nothing")
        XCTAssertEqual(budget.remaining, 0)
        XCTAssertEqual(grants.map(\.others), [0, 1, 2, 3, 4], "each counts those open before it")
    }

    func testSharesComeBackWhenConnectionsClose() {
        let budget = ReceiveBudget(total: 512 << 10, largest: 256 << 10, smallest: 64 << 10)
        let first = budget.reserve(), second = budget.reserve(), third = budget.reserve()
        XCTAssertEqual(third, .init(readSize: 64 << 10, taken: 0, others: 2))
        budget.release(third)
        XCTAssertEqual(budget.remaining, 0, "a share that took nothing gives nothing back")
        budget.release(first)
        let fourth = budget.reserve()
        XCTAssertEqual(fourth.readSize, 256 << 10, "the next connection reads the largest again")
        XCTAssertEqual(fourth.others, 1, "the second is still open; the first and third closed")
        budget.release(second)
        budget.release(fourth)
        XCTAssertEqual(budget.remaining, 512 << 10)
        XCTAssertEqual(budget.reserve().others, 0, "all closed: the next opens alone")
    }

    func testTheSmallestIsTakenFromTheBudgetWhileItLasts() {
        let budget = ReceiveBudget(total: 100 << 10, largest: 256 << 10, smallest: 64 << 10)
        XCTAssertEqual(budget.reserve(), .init(readSize: 64 << 10, taken: 64 << 10, others: 0))
        XCTAssertEqual(budget.reserve(), .init(readSize: 64 << 10, taken: 0, others: 1))
        XCTAssertEqual(budget.remaining, 36 << 10)
    }

    /// Through the binary's own path: one download's connection reads up to the largest, and its share
    /// is back once the download ends.
    func testOneDownloadReadsLargeAndGivesItsShareBack() async throws {
        let budget = ReceiveBudget.shared
        // Connections of earlier tests may still be closing.
        await expect(timeout: 2, every: 10) { budget.remaining == budget.total }
        let before = budget.remaining
        XCTAssertEqual(before, budget.total)
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let transport = AsyncHTTPTransport()
        let response = try await transport.send(TransportRequest(url: server.dataURL(size: 4_000_000, name: "ep.mp3")))
        XCTAssertEqual(budget.remaining, before - budget.largest, "the connection holds the largest share")
        let read = Mutex(0)
        try await response.body.forEach { chunk in read.withLock { $0 = max($0, chunk.readableBytes) } }
        let largest = read.withLock { $0 }
        XCTAssertGreaterThan(largest, 64 << 10, "reads larger than NIO's 64 KiB default")
        XCTAssertLessThanOrEqual(largest, budget.largest)
        await expect(timeout: 1, every: 10) { budget.remaining == before }
        XCTAssertEqual(budget.remaining, before)
        await transport.shutdown()
    }
}
