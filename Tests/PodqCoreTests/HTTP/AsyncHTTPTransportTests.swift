import NIOCore
import PodqCore
import PodqServer
import PodqTestSupport
import XCTest

/// The live transport's body, both ways of reading it, against the in-process server.
final class AsyncHTTPTransportTests: XCTestCase {
    var server: TestServer!
    private var transport: AsyncHTTPTransport!

    override func setUp() async throws {
        server = try await TestServer.start()
        transport = AsyncHTTPTransport(stallTimeout: .seconds(5))
    }

    override func tearDown() async throws {
        await transport.shutdown()
        await server.stop()
    }

    /// Collects what a sink is given; the sink runs on the network thread.
    private final class Collector: @unchecked Sendable {
        let lock = NSLock()
        var bytes: [UInt8] = []
        var calls = 0
        func add(_ chunk: ByteBuffer) {
            lock.withLock {
                bytes += chunk.readableBytesView
                calls += 1
            }
        }
    }

    func testForEachHandsEveryByteInOrderToTheSink() async throws {
        let size: Int64 = 2_500_000
        let response = try await transport.send(TransportRequest(url: server.dataURL(size: size, seed: 11)))
        XCTAssertEqual(response.status, 200)
        let collector = Collector()
        try await response.body.forEach { chunk in collector.add(chunk) }
        XCTAssertEqual(collector.bytes, PatternSource(seed: 11, length: size).bytes(count: Int(size)))
        XCTAssertGreaterThan(collector.calls, 1, "the body arrives in chunks")
    }

    func testIterationGivesTheSameBytes() async throws {
        let size: Int64 = 1_000_000
        let response = try await transport.send(TransportRequest(url: server.dataURL(size: size, seed: 12)))
        var bytes: [UInt8] = []
        for try await chunk in response.body { bytes += chunk.readableBytesView }
        XCTAssertEqual(bytes, PatternSource(seed: 12, length: size).bytes(count: Int(size)))
    }

    struct Refused: Error {}

    func testAnErrorFromTheSinkStopsTheTransferAndIsRethrown() async throws {
        let url = server.dataURL(size: 200_000_000, seed: 13, name: "big.bin", ["rate": "20000000"])
        let response = try await transport.send(TransportRequest(url: url))
        let collector = Collector()
        do {
            try await response.body.forEach { chunk in
                collector.add(chunk)
                if collector.lock.withLock({ collector.bytes.count }) > 1_000_000 { throw Refused() }
            }
            XCTFail("the sink's error is rethrown")
        } catch is Refused {}
        let outcome = try await waitForOutcome()
        XCTAssertFalse(outcome.completed, "the server saw the connection end early")
        XCTAssertLessThan(outcome.bytesSent, 50_000_000)
    }

    func testADroppedBodyCancelsTheRequestAndTheTransportStillWorks() async throws {
        let url = server.dataURL(size: 200_000_000, seed: 14, name: "big.bin", ["rate": "20000000"])
        do {
            let response = try await transport.send(TransportRequest(url: url))
            XCTAssertEqual(response.status, 200)
        }
        let outcome = try await waitForOutcome()
        XCTAssertFalse(outcome.completed)
        let next = try await transport.send(TransportRequest(url: server.dataURL(size: 1_000, seed: 15)))
        let collector = Collector()
        try await next.body.forEach { collector.add($0) }
        XCTAssertEqual(collector.bytes.count, 1_000)
    }

    func testCancellingTheTaskStopsAForEachWithinMilliseconds() async throws {
        let url = server.dataURL(size: 500_000_000, seed: 16, name: "big.bin", ["rate": "20000000"])
        let response = try await transport.send(TransportRequest(url: url))
        let reading = Task { try await response.body.forEach { _ in } }
        try await Task.sleep(for: .milliseconds(200))
        let started = Date()
        reading.cancel()
        do {
            try await reading.value
            XCTFail("a cancelled read throws")
        } catch is CancellationError {}
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        _ = try await waitForOutcome()
    }

    private func waitForOutcome() async throws -> ServerLog.Outcome {
        _ = await waitUntil(timeout: 5, every: 10) { !self.server.log.outcomes.isEmpty }
        guard let outcome = server.log.outcomes.values.first else { throw Refused() }
        return outcome
    }
}
