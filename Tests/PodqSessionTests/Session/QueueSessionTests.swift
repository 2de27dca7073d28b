import Foundation
import PodqCore
import PodqTestAssertions
import PodqTestSupport
import Synchronization
import XCTest

@testable import PodqSession

/// One run of the queue (``QueueSession``), in-process over a real store and the real server: the lock,
/// the completion chain and the order in which a run ends, whichever front end shows it.
final class QueueSessionTests: XCTestCase {
    private var server: TestServer!
    private var dir: TemporaryDirectory!

    override func setUp() async throws {
        server = try await TestServer.start()
        dir = TemporaryDirectory()
    }

    override func tearDown() async throws {
        await server.stop()
        dir.remove()
    }

    /// A home with `config` and `count` small files queued.
    private func context(config: String = "", count: Int = 2) throws -> QueueContext {
        try FileManager.default.createDirectory(atPath: dir.file("home"), withIntermediateDirectories: true)
        try config.write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        let context = try QueueContext.open(home: dir.file("home"), downloadDir: dir.file("out"), echoLog: false)
        for i in 1...count {
            _ = try context.store.queue.add(
                url: server.dataURL(size: 40_000, seed: UInt64(i), name: "f\(i).mp3").absoluteString, title: "f\(i)",
                destination: dir.file("out/f\(i).mp3"), folder: dir.file("out"))
        }
        return context
    }

    /// What a front end saw, in order.
    final class Seen: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    private func frontEnd(_ seen: Seen, cleanup: QueueSession.CleanupTime = .never) -> QueueSession.FrontEnd {
        QueueSession.FrontEnd(
            onEvent: { event in
                if case .completed(let id, _, _, _, _) = event { seen.add("completed #\(id)") }
            }, note: { seen.add("note: " + $0) }, cleanup: cleanup, closed: { seen.add("closed") })
    }

    /// The run, then its end in the one order: every completion seen, the hook awaited (its line said
    /// while it runs), the playlist written, then `closed`; the lock is free afterwards.
    func testARunEndsInOneOrderAndFreesTheLock() async throws {
        let marker = dir.file("hook-ran")
        let hook = dir.file("hook.sh")
        try "#!/bin/sh\nsleep 0.3\necho \"$PODQ_ID\" >> '\(marker)'\n".write(toFile: hook, atomically: true, encoding: .utf8)
        chmod(hook, 0o755)
        let context = try context(config: "on-complete = \(hook)\nplaylist = true\n")
        let seen = Seen()
        let summary = try await QueueSession.with(context: context, frontEnd: frontEnd(seen)) { session in
            XCTAssertNil(session.rateLimiter, "no limit and none to change: no limiter")
            return try await session.run()
        }
        XCTAssertEqual(summary?.completed, 2)
        let lines = seen.all
        XCTAssertEqual(lines.filter { $0.hasPrefix("completed") }.count, 2, "\(lines)")
        let playlist = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("note: playlist: ") }, "\(lines)")
        let closed = try XCTUnwrap(lines.firstIndex(of: "closed"))
        XCTAssertLessThan(playlist, closed)
        XCTAssertEqual(lines.last, "closed")
        let ran = (try? String(contentsOfFile: marker, encoding: .utf8)) ?? ""
        XCTAssertEqual(ran.split(separator: "\n").count, 2, "both hooks finished before the session returned")
        let again = HomeLock(home: context.paths.home)
        XCTAssertNil(try again.acquire(), "the lock is released")
        again.release()
    }

    /// Another podq holds the queue: nil, and the front end's body never runs.
    func testAHeldQueueGivesNilAndRunsNothing() async throws {
        let context = try context()
        let other = HomeLock(home: context.paths.home)
        XCTAssertNil(try other.acquire())
        defer { other.release() }
        let ran = Mutex(false)
        let result: Int? = try await QueueSession.with(context: context, frontEnd: frontEnd(Seen())) { _ in
            ran.withLock { $0 = true }
            return 1
        }
        XCTAssertNil(result)
        XCTAssertFalse(ran.withLock { $0 })
    }

    /// A front end that stops the run (the TUI's `q`) before it is done: the transfers are paused with
    /// their partial files kept, and cleanup after the run still runs (no signal came).
    func testStoppingKeepsThePartialsAndTheAdjustableRateHasALimiter() async throws {
        let context = try context(count: 1)
        _ = try await context.store.queue.add(
            url: server.dataURL(size: 5_000_000, seed: 9, name: "slow.mp3", ["rate": "200000"]).absoluteString,
            title: "slow", destination: dir.file("out/slow.mp3"), folder: dir.file("out"))
        var end = frontEnd(Seen())
        end.adjustableRate = true
        let summary = try await QueueSession.with(context: context, frontEnd: end) { session in
            XCTAssertNotNil(session.rateLimiter)
            XCTAssertNil(session.rateLimiter?.bytesPerSecond)
            let run = Task { try await session.run(untilStopped: true) }
            let part = self.dir.file("out/slow.mp3.part")
            await expect(timeout: 5, every: 10) { ((try? FileManager.default.attributesOfItem(atPath: part)[.size] as? Int) ?? 0) >= 100_000 }
            await session.stop()
            return try await run.value
        }
        XCTAssertEqual(summary?.interrupted, true)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("out/slow.mp3.part")), "the partial is kept")
        let row = try await context.store.queue.downloads().first { $0.title == "slow" }
        XCTAssertEqual(row?.state, .queued)
    }

    /// The session's commands, as the TUI (and sync) ask them: each changes rows through the runner and
    /// answers the line to say; a command refused for some rows says which and why.
    func testCommandsAnswerTheirLine() async throws {
        let context = try context(count: 1)
        _ = try await context.store.queue.add(
            url: server.dataURL(size: 5_000_000, seed: 9, name: "slow.mp3", ["rate": "100000"]).absoluteString,
            title: "slow", destination: dir.file("out/slow.mp3"), folder: dir.file("out"))
        let lines = try await QueueSession.with(context: context, frontEnd: frontEnd(Seen())) { session in
            let run = Task { try await session.run(untilStopped: true) }
            var lines: [String?] = []
            lines.append(try await session.perform(.pauseAll(true)).line)
            lines.append(try await session.perform(.setLimit(2)).line)
            do {
                _ = try await session.perform(.performMany(.cancel, ids: [1, 2, 99]))
                XCTFail("#99 does not exist")
            } catch let error as CommandError {
                lines.append(error.message)
            }
            lines.append(try await session.perform(.remove(ids: [1, 2], deletingFiles: false)).line)
            await session.stop()
            _ = try await run.value
            return lines
        }
        XCTAssertEqual(lines?[0], "paused 2 downloads; P resumes them")
        XCTAssertEqual(lines?[1], "2 downloads at once (saved in \(context.paths.configFile))")
        XCTAssertTrue(lines?[2]?.hasPrefix("cancelled 2 downloads (partial files deleted); d99: ") == true, "\(lines?[2] ?? "")")
        XCTAssertEqual(lines?[3], "removed 2 rows; files kept")
        let downloadsCount = try await context.store.queue.downloads().count
        XCTAssertEqual(downloadsCount, 0)
        XCTAssertTrue(try String(contentsOfFile: context.paths.configFile, encoding: .utf8).contains("simultaneous-downloads = 2"))
    }

    /// The session as a unit: a `MemoryTransport` in place of the network, a temporary store. Each
    /// file is the bytes scripted for its URL; a 404 fails its row with the reason; the requests went
    /// through the given client only; a second session gets the lock the first released.
    func testASessionOnAMemoryTransport() async throws {
        let context = try context(count: 3)
        let rows = try await context.store.queue.downloads()
        let bytes = rows.map { row in (0..<30_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(row.id)) } }
        let memory = MemoryTransport { request, _ in
            guard let index = rows.firstIndex(where: { $0.url == request.url.absoluteString }), index < 2 else {
                return .init(status: 404)
            }
            return .ok(bytes[index], chunkSize: 4096)
        }
        let seen = Seen()
        let summary = try await QueueSession.with(context: context, overrides: .init(transport: memory), frontEnd: frontEnd(seen)) {
            try await $0.run()
        }
        XCTAssertEqual(summary?.completed, 2)
        XCTAssertEqual(summary?.failed, 1)
        for (index, row) in rows.prefix(2).enumerated() {
            XCTAssertEqual(FileManager.default.contents(atPath: row.destination).map(Array.init), bytes[index], "row \(index)")
        }
        let storedDownload = try await context.store.queue.download(id: rows[2].id)
        let failed = try XCTUnwrap(storedDownload)
        XCTAssertEqual(failed.state, .failed)
        XCTAssertTrue(failed.lastError?.contains("404") == true, failed.lastError ?? "")
        XCTAssertEqual(Set(memory.requests.values.map(\.url.absoluteString)), Set(rows.map(\.url)))
        XCTAssertEqual(server.log.outcomes.count, 0, "nothing reached the real server")
        XCTAssertEqual(seen.all.last, "closed")
        let again = try await QueueSession.with(context: context, overrides: .init(transport: memory), frontEnd: frontEnd(Seen())) { _ in true }
        XCTAssertEqual(again, true, "the lock was released")
    }
}
