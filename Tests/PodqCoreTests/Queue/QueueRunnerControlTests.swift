import PodqHTTP
import PodqTestAssertions
import PodqTestSupport
import XCTest

@testable import PodqCore

/// What the TUI's keys do to a running queue, over a real store and the real server.
final class QueueRunnerControlTests: XCTestCase {
    private var server: TestServer!
    private var dir: TemporaryDirectory!
    private var store: QueueStore!
    private var transport: AsyncHTTPTransport!

    override func setUp() async throws {
        server = try await TestServer.start()
        dir = TemporaryDirectory()
        store = try QueueStore(path: dir.file("q.sqlite"))
        transport = AsyncHTTPTransport()
    }

    override func tearDown() async throws {
        await transport.shutdown()
        await server.stop()
        dir.remove()
    }

    private func runner(jobs: Int) -> (QueueRunner, Task<QueueRunner.Summary, any Error>) {
        var settings = Settings()
        settings.simultaneousDownloads = jobs
        settings.perHostDownloads = jobs  // one test server: the total limit is what these tests move
        let runner = QueueRunner(store: store, settings: settings, transport: transport)
        return (runner, Task { try await runner.run(untilStopped: true) })
    }

    private func add(_ n: Int, size: Int64 = 5_000_000, rate: Int = 300_000) throws -> [Int64] {
        try (1...n).map { i in
            try store.queue.add(
                url: server.dataURL(size: size, seed: UInt64(i), name: "f\(i).bin", ["rate": String(rate)]).absoluteString,
                title: "f\(i)", destination: dir.file("f\(i).bin")
            ).id
        }
    }

    private func state(_ id: Int64) throws -> StoredState? { try store.queue.download(id: id)?.state }

    /// Removing many rows at once (the TUI's `C`, `X` on marks): one write; running ones stopped with
    /// their partial files gone, queued ones' partials gone, ids already gone skipped.
    func testRemovingManyStopsTheRunningOnesAndSkipsTheMissing() async throws {
        let ids = try add(4)
        let (runner, task) = runner(jobs: 2)
        let two = await waitUntil { self.server.log.currentInFlight == 2 && FileManager.default.fileExists(atPath: self.dir.file("f2.bin.part")) }
        XCTAssertTrue(two)
        try Data("old partial".utf8).write(to: URL(fileURLWithPath: dir.file("f4.bin.part")))
        let removed = try await runner.remove(ids: [ids[0], ids[1], ids[3], 999], deletingFiles: false)
        XCTAssertEqual(removed, 3)
        let left = try await store.queue.loadDownloads().map(\.id)
        XCTAssertEqual(left, [ids[2]])
        for name in ["f1.bin.part", "f2.bin.part", "f4.bin.part"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file(name)), name)
        }
        let one = await waitUntil { self.server.log.currentInFlight == 1 }
        XCTAssertTrue(one, "the third starts in their place; in flight: \(server.log.currentInFlight)")
        await runner.stop()
        _ = try await task.value
    }

    /// Pausing and cancelling many at once: each row through the state machine in one write, the
    /// refused ones named with why, the running ones stopped before it returns.
    func testPerformingOnManyChangesEachAndNamesTheRefused() async throws {
        let ids = try add(3)
        let (runner, task) = runner(jobs: 2)
        let two = await waitUntil { self.server.log.currentInFlight == 2 }
        XCTAssertTrue(two)
        let refused = try await runner.perform(.pause, ids: ids + [999])
        XCTAssertEqual(refused.map(\.id), [999])
        XCTAssertEqual(refused.first?.error, .noSuchDownload(999))
        XCTAssertEqual(try ids.map(state), [.paused, .paused, .paused])
        let quiet = await waitUntil { self.server.log.currentInFlight == 0 }
        XCTAssertTrue(quiet)
        let again = try await runner.perform(.pause, ids: [ids[0]])
        XCTAssertEqual(again.map(\.id), [ids[0]], "a paused row cannot be paused")
        let cancelled = try await runner.perform(.cancel, ids: ids)
        XCTAssertTrue(cancelled.isEmpty)
        XCTAssertEqual(try ids.map(state), [.cancelled, .cancelled, .cancelled])
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("f1.bin.part")))
        await runner.stop()
        _ = try await task.value
    }

    func testLoweringTheLimitPutsTheLastOnesBackInLineAtOnce() async throws {
        let ids = try add(4)
        let (runner, task) = runner(jobs: 3)
        let three = await waitUntil { self.server.log.currentInFlight == 3 }
        XCTAssertTrue(three)
        // Each has a partial with bytes in it before the limit drops (a download stopped before its first
        // bytes are written has no partial to keep).
        let written = await waitUntil {
            (1...3).allSatisfy { ((try? FileManager.default.attributesOfItem(atPath: self.dir.file("f\($0).bin.part"))[.size] as? Int) ?? 0) > 0 }
        }
        XCTAssertTrue(written)
        await runner.setMaxConcurrent(1)
        let one = await waitUntil { self.server.log.currentInFlight == 1 }
        XCTAssertTrue(one, "in flight: \(server.log.currentInFlight)")
        XCTAssertEqual(try ids.map(state), [.downloading, .queued, .queued, .queued], "the first in queue order keeps running")
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("f2.bin.part")), "the partial of a requeued one is kept")
        await runner.setMaxConcurrent(2)
        let two = await waitUntil { self.server.log.currentInFlight == 2 }
        XCTAssertTrue(two)
        XCTAssertEqual(runner.maxConcurrent, 2)
        await runner.stop()
        _ = try await task.value
    }

    /// `]`/`[` change the host's download cap, and the connections segmented downloads may open to it
    /// follow in the same step.
    func testThePerHostCapCarriesTheConnectionCapAlong() async throws {
        var settings = Settings()
        settings.perHostDownloads = 2
        settings.connectionsPerDownload = 4
        let runner = QueueRunner(store: store, settings: settings, transport: transport)
        XCTAssertEqual(runner.connections.perHost, 4)
        await runner.setPerHost(6)
        XCTAssertEqual(runner.perHostLimit, 6)
        XCTAssertEqual(runner.connections.perHost, 6)
        await runner.setPerHost(1)
        XCTAssertEqual(runner.connections.perHost, 4, "one download keeps its own connections")
    }

    func testTheStoreOrderDecidesWhatStartsNext() async throws {
        let ids = try add(4, size: 400_000, rate: 2_000_000)
        try await store.queue.update(id: ids[3]) { $0.state = .paused }
        var settings = Settings()
        settings.simultaneousDownloads = 1
        let runner = QueueRunner(store: store, settings: settings, transport: transport)
        try await runner.startNext(id: ids[3])  // paused → queued, and first
        let moved = try await runner.move(id: ids[2], by: -1)
        XCTAssertTrue(moved)  // f3 before f2
        let movedFirst = try await runner.move(id: ids[3], by: -1)
        XCTAssertFalse(movedFirst, "already first")
        let task = Task { try await runner.run(untilStopped: true) }
        let done = try await waitUntil(timeout: 20) { try ids.allSatisfy { try self.state($0) == .completed } }
        XCTAssertTrue(done)
        XCTAssertEqual(
            server.log.requests.map(\.path), ["/data/f4.bin", "/data/f1.bin", "/data/f3.bin", "/data/f2.bin"],
            "started next, then queue order with f3 moved up")
        await runner.stop()
        _ = try await task.value
    }

    func testCancelPauseResumeAndRemoveTheSelectedOnly() async throws {
        let ids = try add(3)
        let (runner, task) = runner(jobs: 3)
        let running = try await waitUntil { try ids.allSatisfy { try self.state($0) == .downloading } && self.server.log.currentInFlight == 3 }
        XCTAssertTrue(running)
        let receiving = try await waitUntil { (try self.store.queue.download(id: ids[1])?.bytesReceived ?? 0) > 0 }
        XCTAssertTrue(receiving)
        try await runner.perform(.cancel, id: ids[0])
        try await runner.perform(.pause, id: ids[1])
        let stopped = try await waitUntil { try self.state(ids[0]) == .cancelled && self.state(ids[1]) == .paused }
        XCTAssertTrue(stopped)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("f1.bin.part")), "cancel deletes the partial")
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("f2.bin.part")), "pause keeps it")
        XCTAssertEqual(try state(ids[2]), .downloading, "the others go on")
        do {
            try await runner.perform(.retry, id: ids[1])
            XCTFail("a paused download cannot be retried")
        } catch {
            XCTAssertEqual(error, .cannotChange(id: ids[1], state: "paused", action: "retried"))
        }
        try await runner.perform(.resume, id: ids[1])
        let resumed = try await waitUntil { try self.state(ids[1]) == .downloading }
        XCTAssertTrue(resumed)
        try await runner.remove(id: ids[2], deletingFile: true)
        let storedDownload = try await store.queue.download(id: ids[2])
        XCTAssertNil(storedDownload)
        let gone = await waitUntil { !FileManager.default.fileExists(atPath: self.dir.file("f3.bin.part")) }
        XCTAssertTrue(gone, "remove deletes the partial")
        let pausedCount = try await runner.setAllPaused(true)
        XCTAssertEqual(pausedCount, 1)
        let allPaused = try await waitUntil { try self.state(ids[1]) == .paused && self.server.log.currentInFlight == 0 }
        XCTAssertTrue(allPaused)
        await runner.stop()
        _ = try await task.value
    }

    /// Pause all with the per-host cap holding rows back: nothing runs afterwards, now or a moment
    /// later, and every row says paused (the rows the cap held back were started behind the pause).
    func testPauseAllUnderThePerHostCapStopsEveryDownload() async throws {
        let ids = try add(6)
        var settings = Settings()
        settings.simultaneousDownloads = 6
        settings.perHostDownloads = 2
        let runner = QueueRunner(store: store, settings: settings, transport: transport)
        let task = Task { try await runner.run(untilStopped: true) }
        for round in 0..<3 {
            let two = await waitUntil { self.server.log.currentInFlight == 2 }
            XCTAssertTrue(two, "round \(round): \(server.log.currentInFlight) in flight")
            try await runner.setAllPaused(true)
            await expect(timeout: 10) { self.server.log.currentInFlight == 0 }  // the server saw every transfer stop
            let stopped = runner.status.plans
            await expect(timeout: 20) { runner.status.plans > stopped }  // and a later look at the queue started none
            XCTAssertEqual(server.log.currentInFlight, 0, "round \(round): paused all, yet downloads run")
            XCTAssertEqual(try ids.map(state), Array(repeating: StoredState.paused, count: 6), "round \(round)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("f1.bin.part")), "pause keeps the partials")
            try await runner.setAllPaused(false)
        }
        await runner.stop()
        _ = try await task.value
    }

    /// Cancel one running and one queued download: the running one stops and loses its partial, the
    /// queued one never starts, the others complete.
    func testCancelQueuedAndRunningDownloads() async throws {
        let ids = try add(4, size: 1_000_000, rate: 500_000)
        let (runner, task) = runner(jobs: 2)
        let started = try await waitUntil { try (self.store.queue.download(id: ids[0])?.bytesReceived ?? 0) > 0 || self.state(ids[0]) == .downloading }
        XCTAssertTrue(started)
        try await runner.perform(.cancel, id: ids[0])  // running
        try await runner.perform(.cancel, id: ids[3])  // queued
        await runner.setMaxConcurrent(3)
        let done = try await waitUntil(timeout: 30) { try [ids[1], ids[2]].allSatisfy { try self.state($0) == .completed } }
        XCTAssertTrue(done)
        XCTAssertEqual(try ids.map(state), [.cancelled, .completed, .completed, .cancelled])
        XCTAssertFalse(server.log.requests.contains { $0.path == "/data/f4.bin" }, "a cancelled queued download never starts")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("f1.bin.part")))
        await runner.stop()
        _ = try await task.value
    }

    func testUntilStoppedItWaitsForWorkAndReportsEachRead() async throws {
        var settings = Settings()
        settings.simultaneousDownloads = 2
        let reads = Recorder<Int>()
        let runner = QueueRunner(
            store: store, settings: settings, transport: transport,
            observers: .init(onSync: { reads.append($0.count) }))
        let task = Task { try await runner.run(untilStopped: true) }
        await expect(timeout: 20) { runner.status.plans >= 2 }  // the first look and a tick
        XCTAssertEqual(reads.values.last, 0, "an empty queue keeps it waiting")
        let id = try add(1, size: 100_000, rate: 10_000_000)[0]
        let done = try await waitUntil { try self.state(id) == .completed }
        XCTAssertTrue(done, "a download added later is picked up")
        XCTAssertEqual(reads.values.last, 1)
        await runner.stop()
        let summary = try await task.value
        XCTAssertEqual(summary.completed, 1)
    }
}
