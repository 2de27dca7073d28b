import Foundation
import PodqCore
import PodqSession
import PodqTestAssertions
import PodqTestSupport
import XCTest

/// `podq play`, `o` in the TUI (with a remapped key), and the cleanup rules, through the real binary.
final class PlayAndCleanupTests: TerminalTestCase {
    /// A player that appends its arguments, one call per line, to `played.txt`.
    private func installPlayer() throws -> String {
        let script = dir.file("player.sh")
        try "#!/bin/sh\necho \"$*\" >> '\(dir.file("played.txt"))'\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        return script
    }

    private func config(_ text: String) throws {
        try FileManager.default.createDirectory(atPath: dir.file("home"), withIntermediateDirectories: true)
        try text.write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
    }

    private var played: [String] {
        ((try? String(contentsOfFile: dir.file("played.txt"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func testPlayRunsTheConfiguredPlayerOnACompletedFileAndSaysWhyNot() async throws {
        let player = try installPlayer()
        try config("player = \"\(player) --flag %f --end\"\n")
        let url = server.dataURL(size: 3000, name: "ep.mp3").absoluteString
        let (done, _, derr) = try await cli.run(["download", "--download-dir", dir.file("out"), url, server.url("/status/404").absoluteString])
        XCTAssertEqual(done.code, 1, derr)

        let (ok, _, err) = try await cli.run(["play", "1"])
        XCTAssertEqual(ok.code, 0, err)
        XCTAssertEqual(played, ["--flag \(dir.file("out/ep.mp3")) --end"], "%f is replaced by the file")

        for (args, message) in [
            (["play", "2"], "d2 is failed; only a completed download can be played."),
            (["play", "99"], "There is no download d99; `podq queue` lists them."),
        ] {
            let (code, _, err) = try await cli.run(args)
            XCTAssertEqual(code.code, 2, "an id that names nothing playable is bad input (the table): \(err)")
            XCTAssertTrue(err.contains(message), err)
        }
        try config("player = no-such-player-podq\n")
        let (missing, _, merr) = try await cli.run(["play", "1"])
        XCTAssertEqual(missing.code, 1)
        XCTAssertTrue(merr.contains("The player 'no-such-player-podq' is not installed or not on PATH"), merr)
        XCTAssertEqual(played.count, 1)
    }

    /// `key-play = O`: `o` does nothing any more, `O` hands the terminal to the player and the TUI
    /// comes back.
    func testORemappedToCapitalOPlaysTheSelectedDownloadInTheTUI() async throws {
        let player = try installPlayer()
        try config("player = \"\(player)\"\nkey-play = O\n")
        let (done, _, derr) = try await cli.run(["download", "--download-dir", dir.file("out"), server.dataURL(size: 3000, name: "tui.mp3").absoluteString])
        XCTAssertEqual(done.code, 0, derr)
        let tui = try openTUI()
        let ready = await tui.waitFor { self.line($0, containing: "tui.mp3").hasPrefix("completed") }
        XCTAssertTrue(ready.ok, ready.screen)
        XCTAssertTrue(ready.screen.contains("O play"), "the hint shows the configured letter:\n\(ready.screen)")
        tui.send("o")
        tui.send("O")
        let back = await tui.waitFor { $0.contains("played d1 with") }
        XCTAssertTrue(back.ok, "the TUI is back and says so:\n\(back.screen)")
        XCTAssertTrue(back.screen.contains("STATE"), back.screen)
        XCTAssertEqual(played, [dir.file("out/tui.mp3")], "one call: o did nothing, O played the file")
        tui.send("q")
        let exited = await tui.waitFor { $0.contains("[exit 0]") }
        XCTAssertTrue(exited.ok, exited.screen)
    }

    /// `/static/keep.xml`: the podcast Keep, three episodes E1…E3 of 5,000 bytes.
    private func serveKeepFeed() {
        let items = (1...3).map { i in
            "<item><title>E\(i)</title><guid>g\(i)</guid><pubDate>Sat, 0\(i) Nov 2026 10:00:00 GMT</pubDate>"
                + "<enclosure url=\"/data/e\(i).mp3?size=5000&amp;seed=\(i)\" type=\"audio/mpeg\"/></item>"
        }.joined()
        server.serve(Array("<rss version=\"2.0\"><channel><title>Keep</title>\(items)</channel></rss>".utf8), as: "keep.xml")
    }

    func testKeepEpisodesDeletesOlderFilesAfterADownloadAndCleanupListsWhatWouldGo() async throws {
        serveKeepFeed()
        let (none, noneOut, _) = try await cli.run(["cleanup"])
        XCTAssertEqual(none.code, 0)
        XCTAssertTrue(noneOut.contains("No cleanup rule is set: add `cleanup-days = 30` or `keep-episodes = 5`"), noneOut)

        let (added, _, aerr) = try await cli.run(["add", server.url("/static/keep.xml").absoluteString])
        XCTAssertEqual(added.code, 0, aerr)
        let (queued, _, qerr) = try await cli.run(["queue", "add", "--latest", "3", "1"])
        XCTAssertEqual(queued.code, 0, qerr)
        let manual = server.dataURL(size: 100, name: "by-hand.mp3").absoluteString
        let (first, firstOut, ferr) = try await cli.run(["download", manual])
        XCTAssertEqual(first.code, 0, ferr)
        XCTAssertFalse(firstOut.contains("cleanup"), "no rule, no cleanup")

        // Cleanup deletes played episodes only: these three were heard.
        _ = try await QueueStore(path: dir.file("home/queue.sqlite")).library.setPlayed(episodeIds: [1, 2, 3], played: true)
        try config("keep-episodes = 2\n")
        let (dry, dryOut, _) = try await cli.run(["cleanup", "--dry-run"])
        XCTAssertEqual(dry.code, 0)
        XCTAssertTrue(dryOut.contains("cleanup: would delete 1 file"), dryOut)
        let folder = dir.file("home/downloads/Keep")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).count, 3, "a dry run deletes nothing")

        try config("keep-episodes = 1\n")
        // Rules that changed are said before they delete: this run deletes nothing, and says what would go.
        let (said, saidOut, saidErr) = try await cli.run(["download"])
        XCTAssertEqual(said.code, 0, saidErr)
        XCTAssertTrue(
            saidOut.contains("cleanup: the rules changed") && saidOut.contains("would delete 2 played episode files")
                && saidOut.contains("`podq cleanup --dry-run` lists them"), saidOut)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).count, 3)
        let (second, secondOut, serr) = try await cli.run(["download"])
        XCTAssertEqual(second.code, 0, serr)
        XCTAssertTrue(secondOut.contains("cleanup: deleted 2 files"), secondOut)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).count, 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("home/downloads/by-hand.mp3")), "a URL queued by hand is kept")
        let log = (try? String(contentsOfFile: dir.file("home/podq.log"), encoding: .utf8)) ?? ""
        XCTAssertEqual(log.components(separatedBy: "cleanup deleted").count - 1, 2, log)
    }

    /// A dry run says what the real run does (issue 43): a file whose identity changed since podq
    /// wrote it (the user's own now) is kept by both, and said by both; a symbolic link at a file's
    /// name is said to be a link, not "outside the download folder", and kept.
    func testCleanupsDryRunAgreesWithTheRealRunAndALinkIsSaidAsOne() async throws {
        serveKeepFeed()
        _ = try await cli.run(["add", server.url("/static/keep.xml").absoluteString])
        _ = try await cli.run(["queue", "add", "--latest", "3", "1"])
        let (done, _, derr) = try await cli.run(["download"])
        XCTAssertEqual(done.code, 0, derr)
        _ = try await QueueStore(path: dir.file("home/queue.sqlite")).library.setPlayed(episodeIds: [1, 2, 3], played: true)
        // Which files the rules select, before anything changes: two of the three.
        try config("keep-episodes = 1\n")
        let (_, before, _) = try await cli.run(["cleanup", "--dry-run"])
        let selected = before.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("would delete d"), let slash = line.firstIndex(of: "/") else { return nil }
            return String(line[slash...])
        }
        XCTAssertEqual(selected.count, 2, before)
        guard selected.count == 2 else { return }
        // One replaced by the user's own file (another identity), one by a link to a file outside.
        let (replaced, linked) = (selected[0], selected[1])
        try FileManager.default.removeItem(atPath: replaced)
        try "the user's own".write(toFile: replaced, atomically: false, encoding: .utf8)
        try FileManager.default.removeItem(atPath: linked)
        try "outside".write(toFile: dir.file("outside.txt"), atomically: true, encoding: .utf8)
        XCTAssertEqual(symlink(dir.file("outside.txt"), linked), 0)
        let (dry, dryOut, dryErr) = try await cli.run(["cleanup", "--dry-run"])
        XCTAssertEqual(dry.code, 0, dryErr)
        let (real, realOut, realErr) = try await cli.run(["cleanup"])
        XCTAssertEqual(real.code, 0, realErr)
        XCTAssertFalse(dryOut.contains("would delete d"), "the dry run lists nothing the real run keeps: " + dryOut)
        XCTAssertFalse(realOut.contains("deleted d"), realOut)
        for said in [dryErr, realErr] {
            XCTAssertTrue(said.contains("kept \(replaced): it is not the file podq downloaded there"), said)
            XCTAssertTrue(said.contains("kept \(linked): it is a symbolic link"), said)
            XCTAssertFalse(said.contains("outside the download folder"), said)
        }
        XCTAssertEqual(try String(contentsOfFile: replaced, encoding: .utf8), "the user's own")
        XCTAssertEqual(try String(contentsOfFile: dir.file("outside.txt"), encoding: .utf8), "outside")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: linked), dir.file("outside.txt"))
    }

    /// The cleanup the TUI applies as it starts is said on its message line, with what went: a played
    /// file and its row no longer vanish with only the log saying so (issue 41, point 7).
    func testTheTUISaysWhatItsCleanupDeleted() async throws {
        serveKeepFeed()
        for step in [["add", server.url("/static/keep.xml").absoluteString], ["queue", "add", "--latest", "3", "p1"], ["download"], ["mark-played", "p1"]] {
            let ran = try await cli.run(step)
            XCTAssertEqual(ran.exit.code, 0, "\(step): \(ran.err)")
        }
        try config("keep-episodes = 1\n")
        let held = try await cli.run(["refresh"])  // the rules changed: said, nothing deleted this time
        XCTAssertTrue(held.out.contains("the rules changed"), held.out)
        let tui = try openTUI([], width: 200)
        let said = await tui.waitFor { $0.contains("cleanup deleted 2 episode files") }
        XCTAssertTrue(said.ok, said.screen)
        // keep-episodes keeps the most recently downloaded; the message names the two that went.
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.file("home/downloads/Keep"))
        XCTAssertEqual(left.count, 1, "\(left)")
        let gone = ["E1", "E2", "E3"].filter { name in !left.contains { $0.hasSuffix(" \(name).mp3") } }
        XCTAssertEqual(gone.count, 2)
        let message = said.screen.split(separator: "\n").first { $0.contains("cleanup deleted") } ?? ""
        for name in gone { XCTAssertTrue(message.contains("Keep — \(name)"), "\(name) is named: \(message)") }
        tui.send("q")
        await expect(tui) { $0.contains("[exit ") }
    }
}
