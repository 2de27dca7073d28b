import PodqSQLite
import PodqTestAssertions
import PodqTestSupport
import XCTest

@testable import PodqCore

/// The real binary, several processes at once, one home: the queue commands, the lock, kill -9.
final class QueueCommandTests: CLITestCase {
    private func podq(_ arguments: [String]) throws -> ChildProcess { try cli.start(arguments) }

    @discardableResult
    private func runPodq(_ arguments: [String], timeout: Double = 60) async throws -> (exit: ChildProcess.Exit, out: String, err: String) {
        try await cli.run(arguments, timeout: timeout)
    }

    private func queueJSON() async throws -> [[String: Any]] {
        let (_, out, err) = try await runPodq(["queue", "--json"])
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]], err)
    }

    func testQueueJSONHasTheDocumentedShape() async throws {
        try await runPodq(["queue", "add", "--title", "Show — \u{1B}[31mOne", server.dataURL(size: 10, name: "one.mp3").absoluteString])
        let rows = try await queueJSON()
        XCTAssertEqual(rows.count, 1)
        let row = try XCTUnwrap(rows.first)
        XCTAssertEqual(
            Set(row.keys),
            [
                "id", "url", "title", "podcast", "state", "path", "bytesReceived", "bytesExpected", "error",
                "checksum", "sha256", "verifiedBy", "unverified", "running",
            ])
        XCTAssertEqual(row["title"] as? String, "Show — One", "control characters never reach the store")
        XCTAssertEqual(row["state"] as? String, "queued")
        XCTAssertTrue(row["podcast"] is NSNull)
        XCTAssertTrue(row["bytesExpected"] is NSNull)
        XCTAssertTrue(row["error"] is NSNull)
        XCTAssertEqual(row["path"] as? String, dir.file("home/downloads/one.mp3"))
    }

    func testASecondRunnerExitsWith3AndNamesTheHolderWhileQueueAddIsPickedUp() async throws {
        let slow = server.dataURL(size: 1_000_000, seed: 1, name: "slow.mp3", ["rate": "500000"])
        let runner = try podq(["download", slow.absoluteString])
        await expect(timeout: 2, every: 10) { FileManager.default.fileExists(atPath: dir.file("home/downloads/slow.mp3.part")) }
        let (second, _, err) = try await runPodq(["download"])
        XCTAssertEqual(second.code, 3)
        XCTAssertTrue(err.contains("process \(runner.pid)"), err)
        XCTAssertTrue(err.contains("podq download"), err)

        // Read-only commands and `queue add` work alongside; the runner picks the new one up.
        let (listed, out, _) = try await runPodq(["queue"])
        XCTAssertEqual(listed.code, 0)
        XCTAssertTrue(out.contains("slow.mp3"))
        try await runPodq(["queue", "add", server.dataURL(size: 5000, seed: 2, name: "late.mp3").absoluteString])
        let exit = await runner.finish()
        XCTAssertEqual(exit.code, 0, runner.standardError)
        XCTAssertTrue(runner.standardOutput.contains("completed d2 late.mp3"), runner.standardOutput)
        XCTAssertEqual(FileHash.sha256(path: dir.file("home/downloads/late.mp3")), PatternSource(seed: 2, length: 5000).sha256)
    }

    func testCancelFromAnotherProcessStopsTheRunningDownload() async throws {
        let slow = server.dataURL(size: 3_000_000, seed: 1, name: "slow.mp3", ["rate": "500000"])
        let runner = try podq(["download", slow.absoluteString])
        await expect(timeout: 2, every: 10) { FileManager.default.fileExists(atPath: dir.file("home/downloads/slow.mp3.part")) }
        try await runPodq(["queue", "cancel", "1"])
        let exit = await runner.finish(timeout: 30)
        XCTAssertEqual(exit.code, 0)
        XCTAssertTrue(runner.standardOutput.contains("cancelled d1"), runner.standardOutput)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("home/downloads/slow.mp3.part")))
        let rows = try await queueJSON()
        XCTAssertEqual(rows.first?["state"] as? String, "cancelled")
    }

    /// `podq queue pause` with no ids while `podq download` runs under the per-host cap: every row is
    /// paused in one transaction, the runner stops what runs and starts nothing, and ends.
    func testPauseAllFromAnotherProcessUnderThePerHostCapStopsEverything() async throws {
        let urls = (1...4).map { server.dataURL(size: 20_000_000, seed: UInt64($0), name: "c\($0).mp3", ["rate": "300000"]) }
        // One connection each: the server's count of connections is the count of downloads.
        let runner = try podq(["download", "--jobs", "4", "--per-host", "2", "--connections", "1"] + urls.map(\.absoluteString))
        await expect(timeout: 5, every: 10) { server.log.currentInFlight >= 2 }
        XCTAssertEqual(server.log.currentInFlight, 2, "the cap lets 2 run")
        let (paused, out, err) = try await runPodq(["queue", "pause"])
        XCTAssertEqual(paused.code, 0, err)
        XCTAssertEqual(out.split(separator: "\n").filter { $0.hasPrefix("paused") }.count, 4, out)
        let exit = await runner.finish(timeout: 30)
        XCTAssertEqual(exit.code, 0, runner.standardOutput + runner.standardError)
        // The server notices a closed connection at its next throttled write.
        await expect(timeout: 3, every: 10) { server.log.currentInFlight == 0 }
        XCTAssertEqual(server.log.currentInFlight, 0)
        XCTAssertEqual(server.log.requests.count, 2, "the rows the cap held back never started")
        let rows = try await queueJSON()
        XCTAssertEqual(rows.map { $0["state"] as? String }, Array(repeating: "paused", count: 4))
    }

    /// The promise podq is built on: kill -9 at several moments, restart, and every file is right,
    /// with resumes that use Range and fetch nothing valid twice.
    func testKill9AtSeveralPointsLosesNothing() async throws {
        let size: Int64 = 1_200_000
        let urls = (1...5).map { server.dataURL(size: size, seed: UInt64(100 + $0), name: "ep\($0).mp3", ["rate": "600000"]) }
        try await runPodq(["queue", "add"] + urls.map(\.absoluteString))
        var resumesChecked = 0
        // The bytes on disk, partial and whole: each kill comes after the run wrote `more` of them.
        func onDisk() -> Int64 {
            (1...5).reduce(0) { sum, i in
                let name = dir.file("home/downloads/ep\(i).mp3")
                return sum + ([name, name + ".part"].compactMap { try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int64 }.max() ?? 0)
            }
        }
        for more: Int64 in [300_000, 900_000, 600_000] {
            let before = onDisk()
            let runner = try podq(["download", "--jobs", "3", "--per-host", "3"])
            await expect(timeout: 20, every: 5) { onDisk() >= before + more }
            runner.send(SIGKILL)
            let exit = await runner.finish(timeout: 10)
            XCTAssertEqual(exit.signal, SIGKILL)
            // What is on disk now is what the next run must continue from, exactly.
            var partials: [String: Int64] = [:]
            for i in 1...5 {
                let part = dir.file("home/downloads/ep\(i).mp3.part")
                if let n = try? FileManager.default.attributesOfItem(atPath: part)[.size] as? Int64, n > 0 { partials["/data/ep\(i).mp3"] = n }
            }
            server.log.reset()
            let next = try podq(["download", "--jobs", "3", "--per-host", "3"])
            // Wait (under any load) until the restarted runner has asked for the partials it resumes first.
            let wanted = min(3, partials.count)
            await expect(timeout: 10, every: 20) { server.log.requests.filter({ partials[$0.path] != nil }).count >= wanted }
            for request in server.log.requests where partials[request.path] != nil {
                XCTAssertEqual(request.header("Range"), "bytes=\(partials[request.path]!)-", "resumed \(request.path) exactly where it stopped")
                XCTAssertNotNil(request.header("If-Range"))
                resumesChecked += 1
            }
            next.send(SIGKILL)
            _ = await next.finish(timeout: 10)
        }
        XCTAssertGreaterThanOrEqual(resumesChecked, 3, "the restarts resumed partial files")
        server.log.reset()
        let (exit, out, err) = try await runPodq(["download", "--jobs", "3", "--per-host", "3"], timeout: 120)
        XCTAssertEqual(exit.code, 0, out + err)
        for i in 1...5 {
            XCTAssertEqual(FileHash.sha256(path: dir.file("home/downloads/ep\(i).mp3")), PatternSource(seed: UInt64(100 + i), length: size).sha256, "ep\(i)")
        }
        let rows = try await queueJSON()
        XCTAssertEqual(rows.map { $0["state"] as? String }, Array(repeating: "completed", count: 5))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.file("home/downloads")).filter { $0.hasSuffix(".part") }, [])
    }

    func testABadConfigKeyIsNamedAndNothingRuns() async throws {
        try FileManager.default.createDirectory(atPath: dir.file("home"), withIntermediateDirectories: true)
        try "simultaneous-downloads = 3\nparallel = 9\n".write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        let (exit, _, err) = try await runPodq(["download", server.dataURL(size: 10).absoluteString])
        XCTAssertEqual(exit.code, 4, "a bad config has its own exit code")
        XCTAssertTrue(err.contains("config:2: unknown key 'parallel'"), err)
        XCTAssertTrue(server.log.requests.isEmpty)
    }

    func testADamagedDatabaseIsNamedAndKept() async throws {
        try FileManager.default.createDirectory(atPath: dir.file("home"), withIntermediateDirectories: true)
        let junk = Data(repeating: 0x41, count: 4096)
        _ = FileManager.default.createFile(atPath: dir.file("home/queue.sqlite"), contents: junk)
        let (exit, _, err) = try await runPodq(["queue"])
        XCTAssertEqual(exit.code, 5, "a database that cannot be used has its own exit code")
        XCTAssertTrue(err.contains(dir.file("home/queue.sqlite")) && err.contains("Move it aside"), err)
        XCTAssertEqual(FileManager.default.contents(atPath: dir.file("home/queue.sqlite")), junk)
    }

    /// SQLite's locks on the database file are POSIX locks, which a process loses on *every* descriptor
    /// of the file when it closes *any* one of them. A second store opened in a process that has one
    /// open (the bench, a test, a future command) must not touch the file with open/close: another
    /// podq closing its last connection would then take the file as unused, checkpoint and drop the
    /// WAL under the first store, which writes on into a deleted log: the file came out "not a
    /// database" (found by `podq-bench library`). Every round is checked through a new connection.
    func testASecondStoreInOneProcessKeepsTheFirstsLocks() async throws {
        let path = dir.file("home/queue.sqlite")
        try FileManager.default.createDirectory(atPath: dir.file("home"), withIntermediateDirectories: true)
        let first = try QueueStore(path: path)
        for round in 0..<4 {
            for i in 0..<25 {
                _ = try await first.queue.add(url: "http://h/\(round)-\(i).mp3", title: "\(round)-\(i)", destination: "/d/\(round)-\(i).mp3")
            }
            let second = try QueueStore(path: path)
            _ = try await second.queue.downloads()
            let (exit, _, err) = try await cli.run(["queue", "--json"])
            XCTAssertEqual(exit.code, 0, err)
            for i in 0..<25 {
                _ = try await first.queue.add(url: "http://h/\(round)-b\(i).mp3", title: "b", destination: "/d/\(round)-b\(i).mp3")
            }
            let (check, count) = try await DatabaseQueue(path: path).read { db in
                (try String.fetchOne(db, sql: "PRAGMA integrity_check"), try Int.fetchOne(db, sql: "SELECT count(*) FROM download"))
            }
            XCTAssertEqual(check, "ok", "round \(round)")
            XCTAssertEqual(count, (round + 1) * 50, "round \(round)")
        }
    }

    /// Starts `queue add` in eight processes at once on each of three homes made by `make`, and
    /// checks that every one worked and every episode is queued once.
    private func addTogether(_ make: (String) throws -> Void) async throws {
        for round in 0..<3 {
            let home = dir.file("home\(round)")
            try make(home)
            let adds = try (0..<8).map { i in
                try cli.start(
                    ["queue", "add", server.dataURL(size: 10, seed: UInt64(i), name: "e\(i).mp3").absoluteString],
                    environment: ["PODQ_HOME": home])
            }
            for add in adds {
                let exit = await add.finish(timeout: 60)
                XCTAssertEqual(exit.code, 0, "no process may fail on another's schema work: \(add.standardError)")
            }
            let downloadsCount = try await QueueStore(path: home + "/queue.sqlite").queue.downloads().count
            XCTAssertEqual(downloadsCount, 8)
        }
    }

    /// The TUI and a cron job starting at login on a new home: SQLite answers the new file's switch
    /// to WAL with "busy" at once, and both would create the tables.
    func testProcessesStartedTogetherOnANewHomeAllWork() async throws {
        try await addTogether { _ in }
    }

    /// The same after an upgrade: a database from the first version (before WAL, eight migrations
    /// behind) is migrated by one of them, and the others wait for it.
    func testProcessesStartedTogetherAfterAnUpgradeMigrateOnce() async throws {
        try await addTogether { home in
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            try QueueStore.migrator.migrate(DatabaseQueue(path: home + "/queue.sqlite"), upTo: "v1: download")
        }
    }
}
