import Foundation
import PodqTestSupport
import XCTest

@testable import PodqCommands
@testable import PodqSession

/// `on-complete` through the real binary: the hook gets the file and the download's facts, its
/// failure and its output go to the log without touching the download, and one that hangs is stopped
/// with everything it started when `hook-timeout` is over.
final class CompletionHooksTests: CLITestCase {
    private var logPath: String { dir.file("home/podq.log") }
    private func log() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Writes an executable script and a config that runs it with `arguments`.
    private func hook(_ body: String, arguments: String = "", timeout: Int? = nil) throws -> String {
        try FileManager.default.createDirectory(atPath: dir.file("home"), withIntermediateDirectories: true)
        let script = dir.file("hook.sh")
        try "#!/bin/sh\n\(body)\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        var config = "on-complete = \"\(script)\(arguments.isEmpty ? "" : " " + arguments)\"\n"
        if let timeout { config += "hook-timeout = \(timeout)\n" }
        try config.write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        return script
    }

    private func download(_ name: String) async throws -> (ChildProcess, Int32?, String) {
        let url = server.dataURL(size: 5000, name: name).absoluteString
        let child = try cli.start(["download", "--download-dir", dir.file("out"), url])
        return (child, await child.finish(timeout: 60).code, url)
    }

    func testTheHookGetsTheFileItsArgumentsAndTheDownloadsFacts() async throws {
        let out = dir.file("hook-out.txt")
        _ = try hook("printf '%s\\n' \"$@\" \"$PODQ_FILE\" \"$PODQ_TITLE\" \"$PODQ_URL\" \"$PODQ_ID\" > '\(out)'; echo tagged", arguments: "--tag %f last")
        let (child, code, url) = try await download("ep one.mp3")
        XCTAssertEqual(code, 0, child.standardError)
        let file = dir.file("out/ep one.mp3")
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(Array(lines.prefix(4)), ["--tag", file, "last", file], "%f is the file, the words stay words (no shell)")
        XCTAssertEqual(lines[5], url)
        XCTAssertEqual(lines[6], "1")
        let finished = try XCTUnwrap(log().split(separator: "\n").first { $0.contains("hook finished") }, log())
        XCTAssertTrue(finished.contains("output=tagged") && finished.contains("status=\"exit code 0\""), String(finished))
    }

    func testAFailingHookIsLoggedAndTheDownloadStaysCompleted() async throws {
        _ = try hook("echo 'no space in library' >&2; exit 3")
        let (child, code, _) = try await download("fails.mp3")
        XCTAssertEqual(code, 0, "a failing hook never fails the download: \(child.standardError)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("out/fails.mp3")))
        let line = try XCTUnwrap(log().split(separator: "\n").first { $0.contains("hook failed") }, log())
        XCTAssertTrue(line.contains("status=\"exit code 3\"") && line.contains("output=\"no space in library\""), String(line))
        let (_, queue, _) = try await cli.run(["queue", "--json"])
        XCTAssertTrue(queue.contains("\"completed\""), queue)
    }

    /// A hook that prints a great deal ran all the same: its status is logged with the start of
    /// what it said, escape sequences cleaned out.
    func testAChattyHookIsLoggedAsFinishedWithTheStartOfItsOutput() async throws {
        _ = try hook("printf 'start \\033]0;title\\007\\033[2J'; head -c 100000 /dev/zero | tr '\\000' x; echo; echo done >&2")
        let (child, code, _) = try await download("chatty.mp3")
        XCTAssertEqual(code, 0, child.standardError)
        let line = try XCTUnwrap(log().split(separator: "\n").first { $0.contains("hook") }, log())
        XCTAssertTrue(line.contains("hook finished") && line.contains("status=\"exit code 0\""), String(line))
        XCTAssertTrue(line.contains("output=\"start xxxx"), String(line))
        XCTAssertFalse(line.contains("\u{1B}") || line.contains("title"), "escape sequences are cleaned out: \(line)")
        XCTAssertLessThan(line.utf8.count, CompletionHooks.keptOutput + 400, "the log keeps the start, not 100 KB")
    }

    func testAHookThatHangsIsStoppedWithWhatItStarted() async throws {
        let pids = dir.file("pids")
        _ = try hook("sleep 300 & echo $$ $! > '\(pids)'; wait", timeout: 1)
        let (child, code, _) = try await download("hangs.mp3")
        XCTAssertEqual(code, 0, child.standardError)
        XCTAssertTrue(log().contains("hook timed out"), log())
        XCTAssertTrue(
            child.standardOutput.contains("waiting for 1 on-complete hook to finish (at most 1 s; hook-timeout)"),
            "the wait is said, not silent: \(child.standardOutput)")
        let started = try String(contentsOfFile: pids, encoding: .utf8).split(separator: " ").compactMap {
            pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        XCTAssertEqual(started.count, 2)
        for pid in started {
            let gone = await waitUntil(timeout: 5, every: 50) { kill(pid, 0) != 0 }
            XCTAssertTrue(gone, "process \(pid) of the hook outlived its timeout")
        }
    }

    func testTheCommandsWordsAndThePlaceOfTheFile() {
        XCTAssertEqual(CompletionHooks.arguments(["-q", "%f", "x"], path: "/a b.mp3"), ["-q", "/a b.mp3", "x"])
        XCTAssertEqual(CompletionHooks.arguments(["-q"], path: "/a.mp3"), ["-q", "/a.mp3"])
    }
}
