import PodqSQLite
import PodqSession
import PodqTestAssertions
import PodqTestSupport
import XCTest

/// The one table from an error to an exit code (ExitCodes.swift), through the real binary: each code
/// for what it stands for, and the table in `--help` (and so in the man page).
final class ExitCodeTests: CLITestCase {
    private func exitCode(_ arguments: [String]) async throws -> (Int32?, String) {
        let (exit, out, err) = try await cli.run(arguments)
        return (exit.code, out + err)
    }

    func testUsageIs2() async throws {
        var (code, text) = try await exitCode(["download", "--nope"])
        XCTAssertEqual(code, 2, text)
        (code, text) = try await exitCode(["queue", "pause", "999"])
        XCTAssertEqual(code, 2, "no such download is bad input: \(text)")
        XCTAssertTrue(text.contains("There is no download d999"), text)
        // The same for every command that takes an id: play, verify, remove.
        for arguments in [["play", "99"], ["verify", "99"], ["queue", "remove", "99"]] {
            (code, text) = try await exitCode(arguments)
            XCTAssertEqual(code, 2, "\(arguments): \(text)")
            XCTAssertTrue(text.contains("d99"), text)
        }
    }

    /// An empty path option is a usage error (exit 2, named), never the current folder: nothing is
    /// created where podq was started.
    func testAnEmptyPathOptionIs2AndWritesNothing() async throws {
        let here = dir.file("here")
        try FileManager.default.createDirectory(atPath: here, withIntermediateDirectories: true)
        let url = server.url("/data/e.mp3?size=100").absoluteString
        let cases: [([String], String)] = [
            (["feeds", "--home", ""], "--home"), (["--home", "", "feeds"], "--home"), (["feeds", "--home=  "], "--home"),
            (["download", "--download-dir", "", url], "--download-dir"), (["queue", "add", "--download-dir", "", url], "--download-dir"),
            (["demo", "--download-dir", ""], "--download-dir"),
        ]
        for (arguments, option) in cases {
            let quoted = arguments.map { "'\($0)'" }.joined(separator: " ")
            let child = try ChildProcess(
                executable: "/bin/sh", arguments: ["-c", "cd '\(here)' && exec '\(ChildProcess.podqExecutable)' \(quoted)"],
                environment: ["PODQ_HOME": cli.home], directory: dir.path)
            let exit = await child.finish(timeout: 30)
            XCTAssertEqual(exit.code, 2, "\(arguments): \(child.standardError)")
            XCTAssertTrue(child.standardError.contains("\(option) needs a folder; it was given an empty value."), child.standardError)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: here), [], "\(arguments) wrote where it was started")
        }
    }

    func testAFailedDownloadOrFeedIs1() async throws {
        var (code, text) = try await exitCode(["download", "--download-dir", dir.file("out"), server.url("/status/404").absoluteString])
        XCTAssertEqual(code, 1, text)
        (code, text) = try await exitCode(["add", server.url("/status/500").absoluteString])
        XCTAssertEqual(code, 1, "a feed that cannot be fetched: \(text)")
    }

    func testTheLockIs3() async throws {
        let runner = try cli.start(["download", server.dataURL(size: 2_000_000, name: "slow.mp3", ["rate": "500000"]).absoluteString])
        await expect(timeout: 3, every: 10) { FileManager.default.fileExists(atPath: dir.file("home/downloads/slow.mp3.part")) }
        let (code, text) = try await exitCode(["download"])
        XCTAssertEqual(code, 3, text)
        runner.send(SIGKILL)
        _ = await runner.finish()
    }

    func testABadConfigIs4AndAnUnusableDatabaseIs5() async throws {
        try FileManager.default.createDirectory(atPath: dir.file("home"), withIntermediateDirectories: true)
        try "simultaneous-downloads = lots\n".write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        var (code, text) = try await exitCode(["queue"])
        XCTAssertEqual(code, 4, text)
        try FileManager.default.removeItem(atPath: dir.file("home/config"))

        // A row in a state this podq does not know: the database, not the input, is the problem.
        (code, text) = try await exitCode(["queue", "add", server.dataURL(size: 10, name: "a.mp3").absoluteString])
        XCTAssertEqual(code, 0, text)
        try await DatabaseQueue(path: dir.file("home/queue.sqlite")).write { try $0.execute(sql: "UPDATE download SET state = 'frozen'") }
        (code, text) = try await exitCode(["queue"])
        XCTAssertEqual(code, 5, text)
        XCTAssertTrue(text.contains("'frozen'"), text)
    }

    func testAnInterruptIs130() async throws {
        let runner = try cli.start(["download", server.dataURL(size: 5_000_000, name: "big.mp3", ["rate": "500000"]).absoluteString])
        let part = dir.file("home/downloads/big.mp3.part")
        await expect(timeout: 5, every: 10) { ((try? FileManager.default.attributesOfItem(atPath: part)[.size] as? Int) ?? 0) > 50_000 }
        runner.send(SIGINT)
        let exit = await runner.finish()
        XCTAssertEqual(exit.code, 130, runner.standardOutput + runner.standardError)
    }

    func testTheTableIsInTheHelp() async throws {
        let (code, text) = try await exitCode(["--help"])
        XCTAssertEqual(code, 0)
        for part in [
            "0 success", "1 a download, a feed or the player failed", "2 bad usage", "3 another podq runs the queue",
            "4 the config file is invalid", "5 the queue database cannot be used", "130 interrupted",
        ] {
            XCTAssertTrue(text.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "  ", with: " ").contains(part), "\(part):\n\(text)")
        }
    }
}
