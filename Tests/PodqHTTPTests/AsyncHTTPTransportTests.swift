import NIOCore
import PodqCore
import PodqServer
import PodqTestAssertions
import PodqTestSupport
import Synchronization
import XCTest

@testable import PodqHTTP

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
        let chunks = Atomic(0)
        let reading = Task { try await response.body.forEach { _ in chunks.add(1, ordering: .relaxed) } }
        await expect { chunks.load(ordering: .relaxed) > 2 }  // reading, mid-body
        let started = Date()
        reading.cancel()
        do {
            try await reading.value
            XCTFail("a cancelled read throws")
        } catch is CancellationError {}
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        _ = try await waitForOutcome()
    }

    /// Under a speed limit a read waits for its turn; a cancel does not: with the shared schedule booked
    /// hours ahead (as a slow limit shared by many can be), cancelling the reading task ends it at once
    /// with the request stopped: straight to the server and through an HTTP proxy.
    func testCancellingAPacedTransferEndsItWithoutWaitingForItsTurn() async throws {
        for proxied in [false, true] {
            let limiter = RateLimiter(bytesPerSecond: RateLimiter.slowest)
            _ = limiter.delay(afterReceiving: 100_000_000)  // the next turn: about 9,500 s away
            let proxy = proxied ? try ForwardProxy() : nil
            let client =
                try proxy.map { AsyncHTTPTransport(stallTimeout: .seconds(5), proxies: .success(try ProxySettings.from(environment: ["http_proxy": $0.url]))) }
                ?? transport!
            let url = server.dataURL(size: 50_000_000, seed: 17, name: "paced.bin")
            let response = try await client.send(TransportRequest(url: url, pacing: limiter))
            let collector = Collector()
            let ended = Flag()
            let reading = Task {
                defer { ended.set() }
                try await response.body.forEach { collector.add($0) }
            }
            let flowing = await waitUntil(timeout: 10) { collector.lock.withLock { collector.calls } > 0 }
            XCTAssertTrue(flowing, "the first chunk came (proxied: \(proxied))")
            reading.cancel()
            let stopped = await waitUntil(timeout: 3) { ended.isSet }
            guard stopped else {
                XCTFail("the cancel waited for the read's turn (proxied: \(proxied))")
                return
            }
            do {
                try await reading.value
                XCTFail("a cancelled read throws")
            } catch {}
            XCTAssertLessThan(collector.lock.withLock { collector.bytes.count }, 50_000_000)
            if let proxy {
                await client.shutdown()
                proxy.stop()
            }
        }
    }

    private final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.withLock { value = true } }
        var isSet: Bool { lock.withLock { value } }
    }

    private func waitForOutcome() async throws -> ServerLog.Outcome {
        await expect(timeout: 5, every: 10) { !self.server.log.outcomes.isEmpty }
        guard let outcome = server.log.outcomes.values.first else { throw Refused() }
        return outcome
    }
}
