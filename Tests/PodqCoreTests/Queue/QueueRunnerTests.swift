import PodqCore
import PodqHTTP
import PodqTestAssertions
import PodqTestSupport
import XCTest

/// The runner over a real store and the real server: retries, external changes, the final states.
final class QueueRunnerTests: XCTestCase {
    private var server: TestServer!
    private var dir: TemporaryDirectory!
    private var store: QueueStore!
    private var transport: AsyncHTTPTransport!

    override func setUp() async throws {
        server = try await TestServer.start()
        dir = TemporaryDirectory()
        store = try QueueStore(path: dir.file("q.sqlite"))
        transport = AsyncHTTPTransport(stallTimeout: .milliseconds(500))
    }

    override func tearDown() async throws {
        await transport.shutdown()
        await server.stop()
        dir.remove()
    }

    private func settings(attempts: Int = 3, jobs: Int = 3) -> Settings {
        var s = Settings()
        s.maxAttempts = attempts
        s.retryDelay = 0.05
        s.retryMaxDelay = 0.2
        s.simultaneousDownloads = jobs
        s.perHostDownloads = jobs  // one test server; testPerHostCap sets its own
        return s
    }

    private func add(_ url: URL, _ name: String) throws -> Int64 {
        try store.queue.add(url: url.absoluteString, title: name, destination: dir.file(name)).id
    }

    private func run(_ settings: Settings, watch: (@Sendable (QueueRunner) -> Void)? = nil) async throws
        -> (QueueRunner.Summary, [QueueRunner.Event])
    {
        let events = Recorder<QueueRunner.Event>()
        let current = Recorder<QueueRunner>()
        let runner = QueueRunner(
            store: store, settings: settings, transport: transport,
            observers: .init(onEvent: { event in
                events.append(event)
                if let runner = current.values.first { watch?(runner) }
            }))
        current.append(runner)
        let summary = try await runner.run()
        return (summary, events.values)
    }

    func testADroppedConnectionIsRetriedAndResumedToACorrectFile() async throws {
        let size: Int64 = 800_000
        // The pause before the drop lets the client write what it read, even on a busy machine.
        let id = try add(server.dataURL(size: size, seed: 3, ["dropFirst": "300000", "stallFirst": "300000:0.5"]), "a.bin")
        let (summary, events) = try await run(settings())
        XCTAssertEqual(summary.completed, 1)
        let storedDownload = try await store.queue.download(id: id)
        let row = try XCTUnwrap(storedDownload)
        XCTAssertEqual(row.state, .completed)
        XCTAssertEqual(row.attempts, 2)
        XCTAssertEqual(row.bytesReceived, size)
        XCTAssertNil(row.lastError)
        XCTAssertTrue(events.contains { if case .retrying(id, _, _, _) = $0 { true } else { false } })
        let requests = server.log.requests
        XCTAssertEqual(requests.count, 2)
        XCTAssertNil(requests[0].header("Range"))
        let resumedAt = try XCTUnwrap(requests[1].header("Range"))
        XCTAssertEqual(requests[1].header("If-Range"), "\"3-\(size)\"", "the stored ETag checks the resume")
        XCTAssertEqual(server.log.outcomes[requests[1].sequence]?.bytesSent, size - Int64(resumedAt.dropFirst(6).dropLast())!)
        XCTAssertEqual(FileHash.sha256(path: dir.file("a.bin")), PatternSource(seed: 3, length: size).sha256)
    }

    func testAPermanentErrorFailsAtOnceWithItsReason() async throws {
        let id = try add(server.url("/status/404"), "gone.mp3")
        let (summary, _) = try await run(settings())
        XCTAssertEqual(summary.failed, 1)
        let storedDownload2 = try await store.queue.download(id: id)
        let row = try XCTUnwrap(storedDownload2)
        XCTAssertEqual(row.state, .failed)
        XCTAssertEqual(row.attempts, 1)
        XCTAssertTrue(row.lastError?.contains("HTTP 404") ?? false, row.lastError ?? "")
    }

    func testTemporaryErrorsStopAfterTheLastAttempt() async throws {
        let id = try add(server.url("/status/500"), "busy.mp3")
        let (summary, events) = try await run(settings(attempts: 3))
        XCTAssertEqual(summary.failed, 1)
        let storedDownload3 = try await store.queue.download(id: id)
        let row = try XCTUnwrap(storedDownload3)
        XCTAssertEqual(row.state, .failed)
        XCTAssertEqual(row.attempts, 3)
        XCTAssertEqual(server.log.requests.count, 3)
        XCTAssertTrue(row.lastError?.hasSuffix("(after 3 attempts)") ?? false, row.lastError ?? "")
        XCTAssertEqual(events.filter { if case .retrying = $0 { true } else { false } }.count, 2)
    }

    /// `Retry-After` on the runner's clock: the second attempt waits the hour the server asked for, not
    /// a second less (the ticks in between look and start nothing), and comes once it has passed (the
    /// plan's own timer). No test waits an hour: the clock is moved by hand.
    func testRetryAfterIsHonouredOnTheRunnersClock() async throws {
        let id = try add(server.url("/status/503?retryAfter=3600"), "later.mp3")
        let time = ManualTime(at: Date().timeIntervalSince1970)
        let runner = QueueRunner(store: store, settings: settings(attempts: 2), transport: transport, clock: time)
        let task = Task { try await runner.run() }
        await expect { (try? self.store.queue.download(id: id)?.retryAt) != nil }
        let storedDownload4 = try await store.queue.download(id: id)
        let row = try XCTUnwrap(storedDownload4)
        XCTAssertEqual(row.state, .queued)
        XCTAssertEqual(try XCTUnwrap(row.retryAt) - time.now, 3600, accuracy: 1)
        XCTAssertEqual(server.log.requests.count, 1)
        for step in 1...3 {
            // The tick and the plan's timer asleep on the clock, then 20 minutes less a second of it.
            await expect { time.sleepers == 2 }
            let looked = runner.status.plans
            time.advance(by: step < 3 ? 1200 : 1199)
            await expect { runner.status.plans > looked }
            XCTAssertEqual(server.log.requests.count, 1, "not a second sooner (\(step))")
        }
        await expect { time.sleepers == 2 }
        time.advance(by: 1)
        if !(await expect { self.server.log.requests.count == 2 }) { await runner.stop() }
        let summary = try await task.value  // the second attempt is refused as well: the last one
        XCTAssertEqual(summary.failed, 1)
        XCTAssertEqual(server.log.requests.count, 2)
        let downloadAttempts = try await store.queue.download(id: id)?.attempts
        XCTAssertEqual(downloadAttempts, 2)
    }

    /// Without a `Retry-After`, the backoff's wait is on the runner's clock too: the retry starts as
    /// soon as it is due, however long the tick.
    func testABackoffRetryStartsWhenItsTimeComes() async throws {
        let id = try add(server.url("/status/500"), "busy.mp3")
        var slow = settings(attempts: 2)
        slow.retryDelay = 600
        slow.retryMaxDelay = 600
        let time = ManualTime(at: Date().timeIntervalSince1970)
        let runner = QueueRunner(store: store, settings: slow, transport: transport, clock: time)
        let task = Task { try await runner.run() }
        await expect { (try? self.store.queue.download(id: id)?.retryAt) != nil }
        let downloadRetryAt = try await store.queue.download(id: id)?.retryAt
        let wait = try XCTUnwrap(downloadRetryAt) - time.now
        XCTAssertTrue((300...900).contains(wait), "600 s with its jitter: \(wait)")
        await expect { time.sleepers == 2 }
        time.advance(by: wait + 0.5)
        if !(await expect { self.server.log.requests.count == 2 }) { await runner.stop() }
        _ = try await task.value
        XCTAssertEqual(server.log.requests.count, 2)
    }

    func testAStallIsRetriedAndTheFileCompletes() async throws {
        let size: Int64 = 300_000
        let id = try add(server.dataURL(size: size, seed: 4, ["stallFirst": "100000:3"]), "s.bin")
        // Only the first request stalls: the second asks for a range starting after the stall point.
        let (summary, _) = try await run(settings())
        XCTAssertEqual(summary.completed, 1)
        let downloadAttempts2 = try await store.queue.download(id: id)?.attempts
        XCTAssertEqual(downloadAttempts2, 2)
        XCTAssertEqual(FileHash.sha256(path: dir.file("s.bin")), PatternSource(seed: 4, length: size).sha256)
    }

    func testARedirectChainWhoseTargetChangesBetweenAttempts() async throws {
        let size: Int64 = 500_000
        server.setVersion("moving", 1)
        let target = "/changing/moving?size=\(size)&dropFirst=200000"
        let id = try add(server.url("/redirect/3?to=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"), "m.bin")
        let server = self.server!
        let runner = QueueRunner(
            store: store, settings: settings(), transport: transport,
            observers: .init(onEvent: { event in
                if case .retrying = event { server.setVersion("moving", 2) }  // the file changes while we wait
            }))
        let summary = try await runner.run()
        XCTAssertEqual(summary.completed, 1)
        XCTAssertEqual(
            FileHash.sha256(path: dir.file("m.bin")), TestServer.changingSource(name: "moving", version: 2, size: size).sha256,
            "the stale partial of version 1 was not glued to version 2")
        let last = try XCTUnwrap(server.log.requests.last)
        XCTAssertEqual(last.header("If-Range"), "\"moving-v1\"", "the resume was conditional")
        let downloadEtag = try await store.queue.download(id: id)?.etag
        XCTAssertEqual(downloadEtag, "\"moving-v2\"")
    }

    func testDownloadsAddedOrCancelledFromOutsideArePickedUp() async throws {
        let slow = try add(server.dataURL(size: 600_000, seed: 1, name: "slow.bin", ["rate": "300000"]), "slow.bin")
        let runner = QueueRunner(store: store, settings: settings(), transport: transport)
        let running = Task { try await runner.run() }
        let started = try await waitUntil {
            (try self.store.queue.download(id: slow)?.bytesReceived ?? 0) > 0 || FileManager.default.fileExists(atPath: self.dir.file("slow.bin.part"))
        }
        XCTAssertTrue(started)
        // Another process (here: another connection to the same file) adds one and cancels the first.
        let other = try QueueStore(path: dir.file("q.sqlite"))
        let late = try await other.queue.add(
            url: server.dataURL(size: 1000, seed: 2, name: "late.bin").absoluteString, title: "late", destination: dir.file("late.bin"))
        try await other.queue.update(id: slow) { $0.state = .cancelled }
        let summary = try await running.value
        XCTAssertEqual(summary.completed, 1)
        let downloadState = try await store.queue.download(id: late.id)?.state
        XCTAssertEqual(downloadState, .completed)
        let downloadState2 = try await store.queue.download(id: slow)?.state
        XCTAssertEqual(downloadState2, .cancelled)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("slow.bin.part")), "the cancelled partial is deleted")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("slow.bin")))
    }

    func testStopKeepsPartialsAndLeavesThemQueued() async throws {
        let id = try add(server.dataURL(size: 2_000_000, seed: 5, ["rate": "1000000"]), "big.bin")
        let runner = QueueRunner(store: store, settings: settings(), transport: transport)
        let running = Task { try await runner.run() }
        let started = try await waitUntil { (try self.store.queue.download(id: id)?.state) == .downloading }
        XCTAssertTrue(started)
        await expect(timeout: 5) { ((try? FileManager.default.attributesOfItem(atPath: self.dir.file("big.bin.part"))[.size] as? Int) ?? 0) > 0 }
        await runner.stop()
        let summary = try await running.value
        XCTAssertTrue(summary.interrupted)
        let storedDownload5 = try await store.queue.download(id: id)
        let row = try XCTUnwrap(storedDownload5)
        XCTAssertEqual(row.state, .queued)
        XCTAssertGreaterThan(row.bytesReceived, 0)
        XCTAssertEqual(row.bytesReceived, DownloadOperationSize.of(dir.file("big.bin.part")))
        XCTAssertNotNil(row.etag, "validators are saved for the resume")
    }

    func testTheLimitHoldsAcrossTheWholeQueue() async throws {
        for i in 1...6 { _ = try add(server.dataURL(size: 100_000, seed: UInt64(i), name: "f\(i)", ["rate": "400000"]), "f\(i)") }
        let (summary, _) = try await run(settings(jobs: 2))
        XCTAssertEqual(summary.completed, 6)
        XCTAssertEqual(server.log.maxInFlight, 2)
    }

    func testPerHostCapHoldsAndOtherHostsStillStart() async throws {
        // One server under two host names: 127.0.0.1 and localhost.
        var byName: [String: String] = [:]
        for i in 1...4 {
            let url = server.dataURL(size: 200_000, seed: UInt64(i), name: "h\(i)", ["rate": "400000"])
            byName["/data/h\(i)"] = "127.0.0.1"
            _ = try add(url, "h\(i).bin")
        }
        for i in 5...6 {
            var parts = URLComponents(
                url: server.dataURL(size: 200_000, seed: UInt64(i), name: "h\(i)", ["rate": "400000"]),
                resolvingAgainstBaseURL: false)!
            parts.host = "localhost"
            byName["/data/h\(i)"] = "localhost"
            _ = try add(parts.url!, "h\(i).bin")
        }
        var s = settings(jobs: 6)
        s.perHostDownloads = 2
        let waiting = Recorder<Int>()
        let (summary, _) = try await run(s) { waiting.append($0.waitingForHost) }
        XCTAssertEqual(summary.completed, 6)
        XCTAssertEqual(waiting.values.max(), 2, "the two rows held back were counted (the TUI's status line says so)")
        XCTAssertEqual(waiting.values.last, 0)
        XCTAssertEqual(server.log.maxInFlight, 4, "two from each host at once, never more")
        // The two localhost rows, last in the queue, started alongside the first two, not after them.
        let localhostFirst = try XCTUnwrap(server.log.requests.firstIndex { byName[$0.path] == "localhost" })
        XCTAssertLessThan(localhostFirst, 4, "a capped host does not hold back the rows of another")
        for i in 1...6 {
            XCTAssertEqual(FileHash.sha256(path: dir.file("h\(i).bin")), PatternSource(seed: UInt64(i), length: 200_000).sha256)
        }
    }
}

/// The size of a file, or 0.
enum DownloadOperationSize {
    static func of(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int64) ?? 0
    }
}
