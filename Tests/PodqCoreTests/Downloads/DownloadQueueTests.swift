import PodqCore
import PodqTestSupport
import XCTest

final class DownloadQueueTests: XCTestCase {
    private var server: TestServer!
    private var dir: TemporaryDirectory!
    private var transport: AsyncHTTPTransport!

    override func setUp() async throws {
        server = try await TestServer.start()
        dir = TemporaryDirectory()
        transport = AsyncHTTPTransport()
    }

    override func tearDown() async throws {
        await transport.shutdown()
        await server.stop()
        dir.remove()
    }

    private func operations(_ count: Int, size: Int64 = 200_000, rate: Int = 400_000) -> [DownloadOperation] {
        (1...count).map { i in
            DownloadOperation(id: i, request: DownloadRequest(
                url: server.dataURL(size: size, seed: UInt64(i), name: "f\(i).bin", ["rate": String(rate)]),
                destination: dir.file("f\(i).bin"), title: "f\(i)"), transport: transport)
        }
    }

    func testRunsEverythingUnderTheLimit() async throws {
        let ops = operations(8)
        let queue = DownloadQueue(maxConcurrent: 3)
        await queue.add(ops)
        await queue.waitUntilIdle()
        XCTAssertTrue(ops.allSatisfy { $0.state == .completed })
        XCTAssertEqual(server.log.maxInFlight, 3, "the server saw exactly the limit in flight")
        let maxObserved = await queue.maxObservedConcurrency
        XCTAssertEqual(maxObserved, 3)
        for (i, op) in ops.enumerated() {
            XCTAssertEqual(FileHash.sha256(path: op.request.destination), PatternSource(seed: UInt64(i + 1), length: 200_000).sha256)
        }
    }

    func testStartsInQueueOrder() async throws {
        let ops = operations(4, size: 20_000)
        let queue = DownloadQueue(maxConcurrent: 1)
        await queue.add(ops)
        await queue.waitUntilIdle()
        XCTAssertEqual(server.log.requests.map(\.path), (1...4).map { "/data/f\($0).bin" })
    }

    func testRaisingTheLimitWhileRunningStartsMore() async throws {
        let ops = operations(6, size: 300_000, rate: 300_000)
        let queue = DownloadQueue(maxConcurrent: 1)
        await queue.add(ops)
        try await Task.sleep(for: .milliseconds(200))
        XCTAssertEqual(server.log.currentInFlight, 1)
        await queue.setMaxConcurrent(4)
        for _ in 0..<100 where server.log.currentInFlight < 4 { try await Task.sleep(for: .milliseconds(10)) }
        XCTAssertEqual(server.log.currentInFlight, 4)
        await queue.waitUntilIdle()
        XCTAssertEqual(server.log.maxInFlight, 4)
        XCTAssertTrue(ops.allSatisfy { $0.state == .completed })
    }

    func testCancelQueuedAndRunningDownloads() async throws {
        let ops = operations(4, size: 2_000_000, rate: 500_000)
        let queue = DownloadQueue(maxConcurrent: 2)
        await queue.add(ops)
        while ops[0].downloadedLength == 0 { try await Task.sleep(for: .milliseconds(5)) }
        await queue.cancel(id: 1)  // running
        await queue.cancel(id: 4)  // queued
        await queue.setMaxConcurrent(3)
        await queue.waitUntilIdle()
        XCTAssertEqual(ops.map(\.state), [.cancelled, .completed, .completed, .cancelled])
        XCTAssertFalse(server.log.requests.contains { $0.path == "/data/f4.bin" }, "a cancelled queued download never starts")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("f1.bin.part")))
    }

    func testStartNextMovesADownloadToTheFront() async throws {
        // A slow first download holds the only slot while the last one is promoted.
        let slow = DownloadOperation(id: 99, request: DownloadRequest(
            url: server.dataURL(size: 100_000, seed: 1, name: "slow.bin", ["rate": "200000"]),
            destination: dir.file("slow.bin"), title: "slow"), transport: transport)
        let queue = DownloadQueue(maxConcurrent: 1)
        await queue.add([slow] + operations(3, size: 20_000))
        await queue.startNext(id: 3)
        await queue.waitUntilIdle()
        XCTAssertEqual(server.log.requests.map(\.path), ["/data/slow.bin", "/data/f3.bin", "/data/f1.bin", "/data/f2.bin"])
    }

    func testCancelAllStopsEverything() async throws {
        let ops = operations(5, size: 5_000_000, rate: 500_000)
        let queue = DownloadQueue(maxConcurrent: 2)
        await queue.add(ops)
        while ops[0].downloadedLength == 0 { try await Task.sleep(for: .milliseconds(5)) }
        await queue.cancelAll()
        await queue.waitUntilIdle()
        XCTAssertTrue(ops.allSatisfy { $0.state == .cancelled })
        XCTAssertEqual(dir.contents, [])
    }

    func testPauseAllKeepsPartials() async throws {
        let ops = operations(3, size: 5_000_000, rate: 500_000)
        let queue = DownloadQueue(maxConcurrent: 3)
        await queue.add(ops)
        while ops.contains(where: { $0.downloadedLength == 0 }) { try await Task.sleep(for: .milliseconds(5)) }
        await queue.pauseAll()
        await queue.waitUntilIdle()
        XCTAssertTrue(ops.allSatisfy { $0.state == .paused })
        XCTAssertEqual(dir.contents, ["f1.bin.part", "f2.bin.part", "f3.bin.part"])
    }
}
