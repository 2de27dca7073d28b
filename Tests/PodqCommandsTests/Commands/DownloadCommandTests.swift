import Foundation
import PodqSQLite
import PodqTestAssertions
import PodqTestSupport
import XCTest

/// The real `podq download` binary against the in-process server.
final class DownloadCommandTests: CLITestCase {
    private func podq(_ arguments: [String]) throws -> ChildProcess {
        try cli.start(arguments)
    }

    private func finish(_ child: ChildProcess, timeout: Double = 60) async -> ChildProcess.Exit {
        await child.finish(timeout: timeout)
    }

    func testTwentyURLsWithFiveJobsNeverExceedFiveInFlight() async throws {
        let urls = (1...20).map { server.dataURL(size: 150_000, seed: UInt64($0), name: "ep\($0).mp3", ["rate": "600000"]) }
        let child = try podq(["download", "--jobs", "5", "--per-host", "5", "--download-dir", dir.file("out")] + urls.map(\.absoluteString))
        let exit = await finish(child)
        XCTAssertEqual(exit.code, 0, child.standardError)
        XCTAssertEqual(server.log.maxInFlight, 5, "the server never saw more than 5 at once (and did see 5)")
        for i in 1...20 {
            XCTAssertEqual(FileHash.sha256(path: dir.file("out/ep\(i).mp3")), PatternSource(seed: UInt64(i), length: 150_000).sha256)
        }
        let out = child.standardOutput
        XCTAssertEqual(out.components(separatedBy: "\ncompleted d").count + (out.hasPrefix("completed d") ? 1 : 0) - 1, 20, out)
        XCTAssertFalse(out.contains("\u{1B}"), "no escape sequences when not on a terminal")
        XCTAssertTrue(out.contains("20 completed, 0 failed"))
    }

    /// More than AsyncHTTPClient's default of 8 connections per host really run at once.
    func testTwelveJobsAgainstOneHostAreTwelveInFlight() async throws {
        let urls = (1...12).map { server.dataURL(size: 300_000, seed: UInt64($0), name: "j\($0).mp3", ["rate": "300000"]) }
        let child = try podq(["download", "--jobs", "12", "--per-host", "12", "--download-dir", dir.file("out")] + urls.map(\.absoluteString))
        let exit = await finish(child)
        XCTAssertEqual(exit.code, 0, child.standardError)
        XCTAssertEqual(server.log.maxInFlight, 12, "all twelve were on the wire at once")
    }

    /// Two downloads share one limit: 600 KB at 100 KiB/s in all cannot take less than about 4.5 s (the
    /// first chunk of each is free; a limit per download would let them finish in 2.3 s), where the
    /// server alone sends it in milliseconds. Only a lower bound.
    func testLimitRateIsSharedByTheRunningDownloads() async throws {
        let urls = (1...2).map { server.dataURL(size: 300_000, seed: UInt64($0), name: "r\($0).mp3") }
        let started = Date()
        let child = try podq(["download", "--limit-rate", "100K", "--download-dir", dir.file("out")] + urls.map(\.absoluteString))
        let exit = await finish(child)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(exit.code, 0, child.standardError)
        XCTAssertGreaterThan(elapsed, 3.5, "the limit held")
        for i in 1...2 {
            XCTAssertEqual(FileHash.sha256(path: dir.file("out/r\(i).mp3")), PatternSource(seed: UInt64(i), length: 300_000).sha256)
        }
        let bad = try podq(["download", "--limit-rate", "fast"])
        let badExit = await finish(bad)
        XCTAssertEqual(badExit.code, 2)
        XCTAssertTrue(bad.standardError.contains("--limit-rate takes a rate"), bad.standardError)
    }

    func testAFailureExitsWith1AndSaysWhy() async throws {
        let child = try podq([
            "download", "--download-dir", dir.file("out"),
            server.url("/status/404").absoluteString, server.dataURL(size: 1000, name: "ok.mp3").absoluteString,
        ])
        let exit = await finish(child)
        XCTAssertEqual(exit.code, 1)
        XCTAssertTrue(child.standardOutput.contains("failed    d1 404: The server has no file at"), child.standardOutput)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("out/ok.mp3")))
    }

    func testBadUsageExitsWith2() async throws {
        for args in [["download", "ftp://example.org/x"], ["download", "--jobs", "0", "http://127.0.0.1/x"], ["download", "--nope"]] {
            let child = try podq(args)
            let exit = await finish(child)
            XCTAssertEqual(exit.code, 2, "\(args): \(child.standardError)")
            XCTAssertFalse(child.standardError.isEmpty)
        }
    }

    func testHelpAndVersionExit0() async throws {
        let help = try podq(["download", "--help"])
        let exit = await finish(help)
        XCTAssertEqual(exit.code, 0)
        XCTAssertTrue(help.standardOutput.contains("--jobs"))
        let version = try podq(["--version"])
        _ = await finish(version)
        // `podq 0.1.0`, and the commit when make built it from a clone (Sources/CPodqSystem/commit.h).
        let said = version.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertNotNil(said.range(of: #"^podq 0\.1\.0( \([0-9a-f]{12}(-dirty)?\))?$"#, options: .regularExpression), said)
    }

    /// SIGINT, SIGTERM and SIGHUP: exit 130, the partial kept; the next run resumes it with Range to a
    /// correct file.
    func testInterruptKeepsPartialsAndTheNextRunResumes() async throws {
        for (index, signal) in [SIGINT, SIGTERM, SIGHUP].enumerated() {
            server.log.reset()
            let size: Int64 = 3_000_000
            let url = server.dataURL(size: size, seed: UInt64(50 + index), name: "big\(index).mp3", ["rate": "1000000"])
            let args = ["download", "--download-dir", dir.file("out"), url.absoluteString]
            let first = try podq(args)
            let part = dir.file("out/big\(index).mp3.part")
            await expect(timeout: 4, every: 10) { ((try? FileManager.default.attributesOfItem(atPath: part)[.size] as? Int) ?? 0) > 200_000 }
            first.send(signal)
            let exit = await finish(first)
            XCTAssertEqual(exit.code, 130, "signal \(signal): \(first.standardOutput) \(first.standardError)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: part), "the partial file is kept")
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("out/big\(index).mp3")))
            let id = index + 1  // the queue is durable: the second run's download is #2
            XCTAssertTrue(first.standardOutput.contains("stopped   d\(id)"), first.standardOutput)
            XCTAssertTrue(first.standardOutput.contains("interrupted:"), first.standardOutput)
            let kept = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: part)[.size] as? Int64)
            let listed = try podq(["queue", "--json"])
            _ = await finish(listed)
            let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]])
            XCTAssertEqual(rows.last?["state"] as? String, "queued", "an interrupted download stays queued for the next start")
            XCTAssertEqual(rows.last?["bytesReceived"] as? Int64, kept)

            let second = try podq(args)
            let exit2 = await finish(second)
            XCTAssertEqual(exit2.code, 0, second.standardError)
            XCTAssertTrue(second.standardOutput.contains("resumed   d\(id) big\(index).mp3 at \(kept) bytes"), second.standardOutput)
            XCTAssertEqual(FileHash.sha256(path: dir.file("out/big\(index).mp3")), PatternSource(seed: UInt64(50 + index), length: size).sha256)
            let resume = try XCTUnwrap(server.log.requests.last)
            XCTAssertEqual(resume.header("Range"), "bytes=\(kept)-", "resumed exactly where the partial ends")
            XCTAssertEqual(resume.header("If-Range"), "\"\(50 + index)-\(size)\"", "checked against the stored ETag")
            XCTAssertFalse(FileManager.default.fileExists(atPath: part))
        }
    }

    /// At the slowest speed limit (10 KiB/s shared by three), each chunk read waits seconds for its turn:
    /// SIGINT and SIGTERM still end the run at once (exit 130, partials kept), not when the turns come
    /// (17.5 s at 20 KB/s before). The deadline below is far shorter than the turns booked (about 6 s a
    /// chunk per download, 19 s for the third), so a stop that waits for one fails it.
    func testASignalEndsARunUnderASpeedLimitAtOnce() async throws {
        for signal in [SIGINT, SIGTERM] {
            let urls = (1...3).map { server.dataURL(size: 20_000_000, seed: UInt64(70 + $0), name: "slow\(signal)-\($0).mp3").absoluteString }
            // A home of its own: the first run's queue, interrupted, would resume in the second.
            let own = PodqInvocation(home: dir.file("home-\(signal)"), directory: dir.path)
            let child = try own.start(
                ["download", "--limit-rate", "10K", "--jobs", "3", "--per-host", "3", "--connections", "1", "--download-dir", dir.file("out")] + urls)
            let parts = (1...3).map { dir.file("out/slow\(signal)-\($0).mp3.part") }
            let flowing = await waitUntil(timeout: 20, every: 20) {
                parts.allSatisfy { ((try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0) > 0 }
            }
            XCTAssertTrue(flowing, "three paced downloads: \(child.standardOutput)")
            child.send(signal)
            let exit = await finish(child, timeout: 4)
            XCTAssertEqual(exit.code, 130, "signal \(signal) ended the paced run at once: \(child.standardOutput) \(child.standardError)")
            for part in parts { XCTAssertTrue(FileManager.default.fileExists(atPath: part), "\(part) is kept") }
        }
    }

    /// Under `nohup`, SIGHUP stays ignored: the download goes on to a complete file.
    func testSIGHUPUnderNohupIsIgnored() async throws {
        let size: Int64 = 1_500_000
        let url = server.dataURL(size: size, seed: 60, name: "nohup.mp3", ["rate": "1000000"])
        let child = try ChildProcess(
            executable: "/usr/bin/nohup",
            arguments: [ChildProcess.podqExecutable, "download", "--download-dir", dir.file("out"), url.absoluteString],
            environment: ["PODQ_HOME": cli.home], directory: dir.path)
        let part = dir.file("out/nohup.mp3.part")
        await expect(timeout: 4, every: 10) { ((try? FileManager.default.attributesOfItem(atPath: part)[.size] as? Int) ?? 0) > 100_000 }
        child.send(SIGHUP)
        let exit = await finish(child)
        XCTAssertEqual(exit.code, 0, child.standardOutput + child.standardError)
        XCTAssertEqual(FileHash.sha256(path: dir.file("out/nohup.mp3")), PatternSource(seed: 60, length: size).sha256)
    }

    func testTheDemoLeavesNothingInTheTemporaryFolder() async throws {
        let tmp = dir.file("tmp")
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let (exit, out, err) = try await cli.run(["demo", "--headless", "--bytes-per-second", "20000000"], environment: ["TMPDIR": tmp])
        XCTAssertEqual(exit.code, 0, out + err)
        XCTAssertTrue(out.contains("6 completed, 0 failed") && out.contains("now removed"), out)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tmp), [], "nothing left behind")
    }

    func testDemoDownloadsTheBundledPodcast() async throws {
        let child = try podq(["demo", "--download-dir", dir.file("demo"), "--bytes-per-second", "20000000"])
        let exit = await finish(child)
        XCTAssertEqual(exit.code, 0, child.standardOutput + child.standardError)
        let folder = dir.file("demo/The podq Demo Hour")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder))?.sorted() ?? []
        XCTAssertEqual(files.count, 6, "\(files)")
        XCTAssertEqual(files.first, "2026-11-01 Welcome to podq.wav", "episodes get product names")
        let header = try XCTUnwrap(FileHandle(forReadingAtPath: folder + "/2026-11-01 Welcome to podq.wav")?.read(upToCount: 12))
        XCTAssertEqual(String(decoding: header[0..<4], as: UTF8.self), "RIFF")
        XCTAssertEqual(String(decoding: header[8..<12], as: UTF8.self), "WAVE")
        XCTAssertTrue(child.standardOutput.contains("6 completed, 0 failed"), child.standardOutput)
    }

    /// Another program holds the database's write lock for 12 s (a backup tool, sqlite3) in the middle
    /// of a download: podq waits, says so, and finishes; no row is left downloading.
    func testAnotherProgramHoldingTheDatabaseLockIsWaitedForAndSaid() async throws {
        let url = server.dataURL(size: 1_200_000, seed: 77, name: "locked.mp3", ["rate": "200000"])
        let child = try podq(["download", "--download-dir", dir.file("out"), url.absoluteString])
        let database = dir.file("home/queue.sqlite")
        await expect(timeout: 5, every: 10) { FileManager.default.fileExists(atPath: dir.file("out/locked.mp3.part")) }
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)  // podq may be writing its progress at that moment
        let other = try DatabaseQueue(path: database, configuration: configuration)
        try await other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        // Held until podq says it waits for it (LockWaitNotice: after a few seconds of waiting).
        await expect(timeout: 30) { child.standardOutput.contains("waiting: another program holds the queue database's lock") }
        try await other.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
        let exit = await finish(child)
        XCTAssertEqual(exit.code, 0, child.standardOutput + child.standardError)
        XCTAssertTrue(child.standardOutput.contains("waiting: another program holds the queue database's lock"), child.standardOutput)
        XCTAssertTrue(child.standardOutput.contains("the queue database's lock came free after"), child.standardOutput)
        XCTAssertEqual(FileHash.sha256(path: dir.file("out/locked.mp3")), PatternSource(seed: 77, length: 1_200_000).sha256)
        let states = try await other.read { db in try String.fetchAll(db, sql: "SELECT state FROM download") }
        XCTAssertEqual(states, ["completed"])
    }

    /// A port nobody listens on: said in words with the address, a fast single failure as curl's and
    /// wget's (it took 29.5 s and five attempts, and read "connection reset (error set): Connection
    /// refused) (errno: 111)"; then two attempts).
    func testARefusedConnectionIsSaidInWordsAndTriedOnce() async throws {
        try FileManager.default.createDirectory(atPath: dir.file("home"), withIntermediateDirectories: true)
        try "retry-delay = 0.2\n".write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        // A port bound and never listened on (port 9 once answered and closed in CI).
        let refused = RefusedPort()
        let child = try podq(["download", "--download-dir", dir.file("out"), refused.url("/nothing.mp3")])
        let exit = await finish(child)
        withExtendedLifetime(refused) {}
        let said = child.standardOutput + child.standardError
        XCTAssertEqual(exit.code, 1, said)
        XCTAssertTrue(said.contains("127.0.0.1:\(refused.port) refused the connection"), said)
        XCTAssertFalse(said.contains("errno") || said.contains("error set"), said)
        XCTAssertFalse(said.contains("attempts)"), "one attempt: " + said)
    }

    /// A resume that becomes a restart (the server sends the whole file again, it does not take ranges)
    /// is said on screen and in the log, not done in silence.
    func testAResumeThatBecomesARestartIsSaid() async throws {
        try FileManager.default.createDirectory(atPath: dir.file("home"), withIntermediateDirectories: true)
        try "retry-delay = 0.1\n".write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        let url = server.dataURL(size: 2_000_000, seed: 81, name: "norange.mp3", ["ranges": "ignore", "dropFirst": "1500000"])
        let child = try podq(["download", "--download-dir", dir.file("out"), url.absoluteString])
        let exit = await finish(child)
        XCTAssertEqual(exit.code, 0, child.standardOutput + child.standardError)
        XCTAssertTrue(
            child.standardOutput.contains(
                "note      d1 norange.mp3: the server sent the whole file instead of the rest (it does not resume downloads): it starts again from zero"),
            child.standardOutput)
        let log = try String(contentsOfFile: dir.file("home/podq.log"), encoding: .utf8)
        XCTAssertTrue(log.contains("it does not resume downloads"), log)
        XCTAssertEqual(FileHash.sha256(path: dir.file("out/norange.mp3")), PatternSource(seed: 81, length: 2_000_000).sha256)
    }

    /// SIGTERM while another program holds the database's lock: podq stops at once (130), not after the
    /// 10 minutes it would wait for the lock; what it could not save is reconciled at the next start.
    func testSIGTERMWhileTheDatabaseIsLockedEndsTheRunAtOnce() async throws {
        let url = server.dataURL(size: 3_000_000, seed: 78, name: "held.mp3", ["rate": "200000"])
        let child = try podq(["download", "--download-dir", dir.file("out"), url.absoluteString])
        await expect(timeout: 5, every: 10) { FileManager.default.fileExists(atPath: dir.file("out/held.mp3.part")) }
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)  // podq may be writing its progress at that moment
        let other = try DatabaseQueue(path: dir.file("home/queue.sqlite"), configuration: configuration)
        try await other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        await expect(timeout: 10, every: 20) { child.standardOutput.contains("waiting: another program") }
        child.send(SIGTERM)
        let exit = await finish(child, timeout: 20)
        try await other.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
        XCTAssertEqual(exit.code, 130, child.standardOutput + child.standardError)
        // The next run resumes it.
        let (again, out, err) = try await cli.run(["download"], timeout: 60)
        XCTAssertEqual(again.code, 0, out + err)
        XCTAssertEqual(FileHash.sha256(path: dir.file("out/held.mp3")), PatternSource(seed: 78, length: 3_000_000).sha256)
    }
}
