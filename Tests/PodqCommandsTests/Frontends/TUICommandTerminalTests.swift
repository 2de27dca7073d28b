import Foundation
import PodqTestAssertions
import PodqTestSupport
import XCTest

/// The real `podq` TUI in a real terminal (tmux) against the in-process server: the screen is read
/// back with `capture-pane` and the server's log says what really went over the wire.
final class TUICommandTerminalTests: TerminalTestCase {
    func testBarsAdvanceAndCCancelsOnlyTheSelectedRow() async throws {
        _ = try await queue(3, size: 2_000_000, rate: 400_000)
        let tui = try openTUI()
        let running = await tui.waitFor { s in (1...3).allSatisfy { (self.percent(s, "ep\($0).mp3") ?? 0) >= 10 } }
        XCTAssertTrue(running.ok, "three rows with live bars:\n\(running.screen)")
        XCTAssertTrue(running.screen.contains("█") && running.screen.contains("B/s"), running.screen)
        let first = percent(running.screen, "ep1.mp3") ?? 0
        let later = await tui.waitFor { (self.percent($0, "ep1.mp3") ?? 0) > first }
        XCTAssertTrue(later.ok, "the bar advances:\n\(later.screen)")

        tui.send("j")  // the second row
        tui.send("c")
        let cancelled = await tui.waitFor { self.line($0, containing: "ep2.mp3").hasPrefix("cancelled") }
        XCTAssertTrue(cancelled.ok, cancelled.screen)
        XCTAssertTrue(line(cancelled.screen, containing: "ep1.mp3").hasPrefix("downloading"), cancelled.screen)
        XCTAssertTrue(line(cancelled.screen, containing: "ep3.mp3").hasPrefix("downloading"), cancelled.screen)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("out/ep2.mp3.part")), "the cancelled row's partial is deleted")

        let done = await tui.waitFor(timeout: 30) { $0.contains("2 done") }
        XCTAssertTrue(done.ok, "the others go on to the end:\n\(done.screen)")
        tui.send("q")
        let exited = await tui.waitFor { $0.contains("[exit 0]") }
        XCTAssertTrue(exited.ok, exited.screen)
        for i in [1, 3] { XCTAssertEqual(FileHash.sha256(path: dir.file("out/ep\(i).mp3")), expectedHash(i, 2_000_000)) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("out/ep2.mp3")))
    }

    /// Under the slowest speed limit a chunk's turn is seconds away: `c`, `p` and `q` act at once all the
    /// same, and what the message line says is already true when it is shown (the cancelled row's partial
    /// is gone; before, it stayed 56 s after "its partial file is deleted"). Each wait below is far
    /// shorter than the turns the three downloads booked.
    func testCancelPauseAndQuitUnderASpeedLimitActAtOnceAndSayWhatIsTrue() async throws {
        try FileManager.default.createDirectory(atPath: cli.home, withIntermediateDirectories: true)
        try "rate-limit = 10K\n".write(toFile: cli.home + "/config", atomically: true, encoding: .utf8)
        _ = try await queue(3, size: 20_000_000, rate: 50_000_000)
        let tui = try openTUI()
        let parts = (1...3).map { dir.file("out/ep\($0).mp3.part") }
        let flowing = await waitUntil(timeout: 20, every: 20) {
            parts.allSatisfy { ((try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0) > 0 }
        }
        XCTAssertTrue(flowing, tui.capture())
        tui.send("j")
        tui.send("c")
        let cancelled = await tui.waitFor(timeout: 4) { $0.contains("cancelled d2 (its partial file is deleted)") }
        XCTAssertTrue(cancelled.ok, cancelled.screen)
        XCTAssertFalse(FileManager.default.fileExists(atPath: parts[1]), "the partial is deleted when the message says so")
        tui.send("k")
        tui.send("p")
        let paused = await tui.waitFor(timeout: 4) { $0.contains("paused d1 (its partial file is kept)") }
        XCTAssertTrue(paused.ok, paused.screen)
        XCTAssertTrue(FileManager.default.fileExists(atPath: parts[0]))
        tui.send("q")
        let exited = await tui.waitFor(timeout: 4) { $0.contains("[exit 0]") }
        XCTAssertTrue(exited.ok, "q ends a paced TUI at once:\n\(exited.screen)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: parts[2]), "the running one's partial is kept")
    }

    func testPPausesAndResumesWithTheServerSeeingARange() async throws {
        _ = try await queue(1, size: 3_000_000, rate: 600_000)
        let tui = try openTUI()
        let running = await tui.waitFor { (self.percent($0, "ep1.mp3") ?? 0) > 10 }
        XCTAssertTrue(running.ok, running.screen)
        tui.send("p")
        let paused = await tui.waitFor { self.line($0, containing: "ep1.mp3").hasPrefix("paused") }
        XCTAssertTrue(paused.ok, paused.screen)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("out/ep1.mp3.part")), "the partial is kept")
        let idle = await waitUntil { self.server.log.currentInFlight == 0 }
        XCTAssertTrue(idle, "the transfer stopped")

        tui.send("p")
        let done = await tui.waitFor(timeout: 30) { self.line($0, containing: "ep1.mp3").hasPrefix("completed") }
        XCTAssertTrue(done.ok, done.screen)
        XCTAssertNotNil(server.log.requests.last?.header("Range"), "resumed with a Range request")
        XCTAssertEqual(FileHash.sha256(path: dir.file("out/ep1.mp3")), expectedHash(1, 3_000_000))
        tui.send("q")
        await expect(tui) { $0.contains("[exit 0]") }
    }

    /// `P` with the per-host cap holding rows back: every row says paused and nothing runs, now or after
    /// the runner looked at the queue again with room for more (`+`); `P` again resumes them under the cap.
    /// (The runner's rule, look by look, is QueueRunnerControlTests'.)
    func testPauseAllUnderThePerHostCapStopsEverything() async throws {
        _ = try await queue(5, size: 20_000_000, rate: 300_000)
        let tui = try openTUI(["--jobs", "5", "--per-host", "2", "--connections", "1"])
        let two = await waitUntil { self.server.log.currentInFlight == 2 }
        XCTAssertTrue(two, "the cap lets 2 run, saw \(server.log.currentInFlight)")
        tui.send("P")
        let paused = await tui.waitFor { s in (1...5).allSatisfy { self.line(s, containing: "ep\($0).mp3").hasPrefix("paused") } }
        XCTAssertTrue(paused.ok, paused.screen)
        await expect(timeout: 10) { self.server.log.currentInFlight == 0 }
        // A new limit makes the runner plan again at once: with room for six, it still starts none.
        tui.send("+")
        let still = await expect(tui) { s in s.contains("0/6 active") && (1...5).allSatisfy { self.line(s, containing: "ep\($0).mp3").hasPrefix("paused") } }
        XCTAssertEqual(server.log.currentInFlight, 0, "paused all, and nothing runs:\n\(still)")
        tui.send("P")
        let again = await waitUntil { self.server.log.currentInFlight == 2 }
        XCTAssertTrue(again, "P resumes them under the cap, saw \(server.log.currentInFlight)")
        tui.send("q")
        await expect(tui) { $0.contains("[exit ") }
        // Two started, were paused, and resumed: a row started behind the pause would be a fifth request.
        XCTAssertEqual(server.log.requests.count, 4, server.log.requests.map(\.path).joined(separator: " "))
    }

    func testPlusAndMinusChangeTheNumberInFlight() async throws {
        _ = try await queue(6, size: 20_000_000, rate: 300_000)
        // A config of the user's own, with CRLF line ends: the TUI's edits keep every byte of it.
        let mine = "# my settings\r\nmax-attempts = 7 # retries\r\n\r\n"
        try mine.write(toFile: cli.home + "/config", atomically: true, encoding: .utf8)
        let tui = try openTUI(["--jobs", "2", "--per-host", "3", "--connections", "1"])
        let two = await waitUntil { self.server.log.currentInFlight == 2 }
        XCTAssertTrue(two, "2 in flight at first, saw \(server.log.currentInFlight)")
        tui.send("+")
        let three = await waitUntil { self.server.log.currentInFlight == 3 }
        XCTAssertTrue(three, "+ makes it 3, saw \(server.log.currentInFlight)")
        let status = await tui.waitFor { $0.contains("3/3 active") }
        XCTAssertTrue(status.ok, status.screen)
        tui.send("-")
        tui.send("-")
        let one = await waitUntil { self.server.log.currentInFlight == 1 }
        XCTAssertTrue(one, "- - makes it 1 at once, saw \(server.log.currentInFlight)")
        // The config is written by the keys' worker, after the runner took the change: it may come a
        // moment after the downloads in flight went down.
        let kept = await waitUntil {
            ((try? String(contentsOfFile: self.cli.home + "/config", encoding: .utf8)) ?? "").contains("simultaneous-downloads = 1")
        }
        let config = try String(contentsOfFile: cli.home + "/config", encoding: .utf8)
        XCTAssertTrue(kept, "kept in the config:\n\(config)")

        // < sets a speed limit from the current speed (one download at 300 KB/s: about 146 KiB/s), > doubles it.
        tui.send("<")
        let limited = await tui.waitFor { $0.contains("speed limit") && $0.contains("(max ") }
        XCTAssertTrue(limited.ok, limited.screen)
        let saved = try String(contentsOfFile: cli.home + "/config", encoding: .utf8)
        XCTAssertTrue(saved.hasPrefix(mine), "the user's lines are kept byte for byte:\n\(saved.debugDescription)")
        let rate = try XCTUnwrap(
            saved.split(separator: "\r\n").first { $0.hasPrefix("rate-limit = ") }.flatMap { Int($0.dropFirst(13)) },
            saved.debugDescription)
        XCTAssertLessThan(rate, 300_000, "below the speed it had")
        tui.send(">")
        let doubled = await tui.waitFor { _ in
            (try? String(contentsOfFile: self.cli.home + "/config", encoding: .utf8))?.contains("rate-limit = \(rate * 2)") == true
        }
        XCTAssertTrue(doubled.ok, "> doubles it:\n\(doubled.screen)")
        tui.send("q")
        await expect(tui) { $0.contains("[exit ") }
    }

    func testAResizeReLaysOutAndNarrowColumnsDropOut() async throws {
        _ = try await queue(1, size: 20_000_000, rate: 200_000)
        let tui = try openTUI(width: 120)
        let wide = await tui.waitFor { $0.contains("SPEED") && $0.contains("B/s") }
        XCTAssertTrue(wide.ok, wide.screen)
        tui.resize(width: 40, height: 12)
        // The row is a download of 20 MB (split or not): "downloading" or "4 segments" is its state.
        let narrow = await tui.waitFor { s in !s.contains("SPEED") && (s.contains("downloading") || s.contains("segments")) && s.contains("%") }
        XCTAssertTrue(narrow.ok, "at 40 columns the speed column drops out:\n\(narrow.screen)")
        let lines = narrow.screen.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertTrue(lines.allSatisfy { $0.count <= 40 }, narrow.screen)
        XCTAssertTrue(lines.contains { $0.hasPrefix("downloading") || $0.hasPrefix("4 segments") }, "one line per row, nothing wrapped:\n\(narrow.screen)")
        tui.resize(width: 120, height: 20)
        let back = await tui.waitFor { $0.contains("SPEED") }
        XCTAssertTrue(back.ok, back.screen)
        tui.send("q")
        await expect(tui) { $0.contains("[exit ") }
    }

    /// A large file from a server that takes ranges: its row says how many connections fetch it and
    /// its bar shows the segments' holes, then the file completes whole.
    func testASegmentedDownloadShowsItsSegmentsInItsRow() async throws {
        _ = try await queue(1, size: 16 << 20, rate: 1_500_000, prefix: "big", digest: true)
        let tui = try openTUI()
        let shown = await tui.waitFor(timeout: 20) { screen in
            let row = self.line(screen, containing: "big1.mp3")
            // "4 segments", and a bar with a filled cell after an empty one: a hole between segments.
            return row.hasPrefix("4 segments") && row.range(of: "·+[▏▎▍▌▋▊▉█]", options: .regularExpression) != nil
        }
        XCTAssertTrue(shown.ok, shown.screen)
        let done = await tui.waitFor(timeout: 30) { self.line($0, containing: "big1.mp3").hasPrefix("completed") }
        XCTAssertTrue(done.ok, done.screen)
        XCTAssertEqual(FileHash.sha256(path: dir.file("out/big1.mp3")), expectedHash(1, 16 << 20))
        tui.send("q")
        await expect(tui) { $0.contains("[exit 0]") }
    }

    func testQRestoresTheTerminalAndTheNextStartResumesToCorrectFiles() async throws {
        _ = try await queue(2, size: 4_000_000, rate: 500_000)
        let tui = try openTUI()
        let running = await tui.waitFor { s in (1...2).allSatisfy { (self.percent(s, "ep\($0).mp3") ?? 0) >= 15 } }
        XCTAssertTrue(running.ok, running.screen)
        XCTAssertEqual(tui.display("#{alternate_on}"), "1", "the TUI holds the alternate screen")
        tui.send("q")
        let exited = await tui.waitFor { $0.contains("[exit 0]") }
        XCTAssertTrue(exited.ok, exited.screen)
        XCTAssertTrue(exited.screen.contains("2 unfinished downloads kept"), exited.screen)
        XCTAssertFalse(exited.screen.contains("PROGRESS"), "the TUI's screen is gone:\n\(exited.screen)")
        XCTAssertEqual(tui.display("#{alternate_on}"), "0", "the terminal is back on the normal screen")
        XCTAssertEqual(tui.display("#{cursor_flag}"), "1", "the cursor is visible again")
        for i in 1...2 { XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("out/ep\(i).mp3.part"))) }

        server.log.reset()
        let again = try openTUI()
        let done = await again.waitFor(timeout: 30) { $0.contains("2 done") }
        XCTAssertTrue(done.ok, done.screen)
        let ranges = server.log.requests.compactMap { $0.header("Range") }
        XCTAssertEqual(ranges.count, 2, "both resumed with Range: \(ranges)")
        for i in 1...2 { XCTAssertEqual(FileHash.sha256(path: dir.file("out/ep\(i).mp3")), expectedHash(i, 4_000_000)) }
        again.send("q")
        await expect(again) { $0.contains("[exit ") }
    }

    func testAQueueAddFromAnotherTerminalAppears() async throws {
        let tui = try openTUI()
        let empty = await tui.waitFor { $0.contains("Nothing here yet. Press a and type a podcast") }
        XCTAssertTrue(empty.ok, empty.screen)
        _ = try await queue(1, size: 300_000, rate: 1_000_000, prefix: "late")
        let shown = await tui.waitFor(timeout: 10) { self.line($0, containing: "late1.mp3").hasPrefix("completed") }
        XCTAssertTrue(shown.ok, shown.screen)
        tui.send("q")
        await expect(tui) { $0.contains("[exit ") }
    }

    /// `podq demo` in tmux, its home and downloads in the test's folder, each episode sent at `rate`.
    private func openDemo(rate: Int) throws -> Tmux {
        tmux?.stop()
        let command = [
            ChildProcess.podqExecutable, "demo", "--home", cli.home, "--download-dir", dir.file("demo"),
            "--bytes-per-second", String(rate),
        ].map { "'\($0)'" }.joined(separator: " ")
        let tui = try Tmux(command: command, width: 120, height: 20)
        tmux = tui
        return tui
    }

    /// `q` in a demo that runs in a temporary folder: the folder goes with its partial files, and the
    /// TUI does not claim they resume next time.
    func testQuittingATemporaryDemoRemovesItAndDoesNotPromiseAResume() async throws {
        let tmp = dir.file("tmp")
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        tmux?.stop()
        let tui = try Tmux(command: "env TMPDIR='\(tmp)' '\(ChildProcess.podqExecutable)' demo --bytes-per-second 200000", width: 120, height: 20)
        tmux = tui
        let live = await tui.waitFor { $0.contains("downloading") && $0.contains("B/s") }
        XCTAssertTrue(live.ok, live.screen)
        // Quit once a partial file has bytes: quitting must remove it with the demo's folder.
        await expect(timeout: 20) {
            let found = FileManager.default.enumerator(atPath: tmp)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".part") } ?? []
            return found.contains { ((try? FileManager.default.attributesOfItem(atPath: tmp + "/" + $0)[.size] as? Int) ?? 0) > 0 }
        }
        tui.send("q")
        let exited = await tui.waitFor { $0.contains("[exit 0]") }
        XCTAssertTrue(exited.ok, exited.screen)
        XCTAssertTrue(exited.screen.contains("now removed"), exited.screen)
        XCTAssertFalse(exited.screen.contains("resume on the next start"), exited.screen)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tmp), [], "nothing left behind")
    }

    func testDemoOpensTheTUIWithLiveDownloads() async throws {
        let tui = try openDemo(rate: 400_000)
        let live = await tui.waitFor { $0.contains("downloading") && $0.contains("The podq Demo Hour") && $0.contains("B/s") }
        XCTAssertTrue(live.ok, live.screen)
        let done = await tui.waitFor(timeout: 40) { $0.contains("6 done") }
        XCTAssertTrue(done.ok, done.screen)
        tui.send("2")
        let episodes = await tui.waitFor { $0.contains("EPISODE") && $0.contains("Welcome to podq") }
        XCTAssertTrue(episodes.ok, episodes.screen)
        tui.send("q")
        let exited = await tui.waitFor { $0.contains("[exit 0]") }
        XCTAssertTrue(exited.ok, exited.screen)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: dir.file("demo/The podq Demo Hour"))) ?? []
        XCTAssertEqual(files.filter { $0.hasSuffix(".wav") }.count, 6, "\(files)")
    }

    /// The demo's server honours ranges: an episode paused and resumed goes on where it stopped.
    func testTheDemoResumesAPausedEpisodeWhereItStopped() async throws {
        let tui = try openDemo(rate: 150_000)
        let live = await tui.waitFor { $0.contains("downloading") && $0.contains("B/s") }
        XCTAssertTrue(live.ok, live.screen)
        tui.send("p")
        let paused = await tui.waitFor { $0.contains("paused") }
        XCTAssertTrue(paused.ok, paused.screen)
        tui.send("p")
        let done = await tui.waitFor(timeout: 60) { $0.contains("6 done") }
        XCTAssertTrue(done.ok, done.screen)
        tui.send("q")
        await expect(tui) { $0.contains("[exit ") }
        let log = try String(contentsOfFile: cli.home + "/podq.log", encoding: .utf8)
        XCTAssertTrue(log.contains("download resumed"), "the paused episode went on with a range request: \(log.suffix(2000))")
    }

    func testSIGTERMSIGINTAndSIGHUPRestoreTheTerminalAndKeepThePartials() async throws {
        _ = try await queue(1, size: 20_000_000, rate: 300_000)
        for (signal, name) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT"), (SIGHUP, "SIGHUP")] {
            let tui = try openTUI()
            let running = await tui.waitFor { (self.percent($0, "ep1.mp3") ?? 0) >= 1 }
            XCTAssertTrue(running.ok, running.screen)
            let pid = try XCTUnwrap(processID(containing: ["tui", cli.home]), "the podq process")
            kill(pid, signal)
            let exited = await tui.waitFor { $0.contains("[exit ") }
            XCTAssertTrue(exited.screen.contains("[exit 130]"), "\(name):\n\(exited.screen)")
            XCTAssertEqual(tui.display("#{alternate_on}"), "0", "\(name): the terminal is restored")
            XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("out/ep1.mp3.part")), name)
            let queue = try await cli.run(["queue", "--json"])
            XCTAssertTrue(queue.out.contains("\"state\" : \"queued\"") || queue.out.contains("\"state\":\"queued\""), queue.out)
        }
    }

    /// A terminal that goes away without a signal (its other end closed; the TUI is not its session
    /// leader) ends the TUI as SIGHUP does: exit 130 with the partial kept. Before, every read failed
    /// at once and the loop spun on a core forever.
    func testAHungUpTerminalEndsTheTUIWithThePartialKept() async throws {
        _ = try await queue(1, size: 20_000_000, rate: 300_000)
        let terminal = try PseudoTerminal(width: 120, height: 30)
        let tui = try ChildProcess(
            executable: ChildProcess.podqExecutable, arguments: ["tui", "--home", cli.home, "--per-host", "8"],
            environment: ["TERM": "xterm-256color", "LANG": "C.UTF-8"], directory: dir.path, terminal: terminal.device)
        let part = dir.file("out/ep1.mp3.part")
        let running = await waitUntil { ((try? FileManager.default.attributesOfItem(atPath: part)[.size] as? Int) ?? 0) > 100_000 }
        XCTAssertTrue(running, "the download runs")
        XCTAssertGreaterThan(terminal.bytesDrawn, 0, "the TUI drew its screen")
        terminal.close()
        let exit = await Task.detached { tui.wait(timeout: 30) }.value
        XCTAssertEqual(exit.code, 130, "\(exit) \(tui.standardError)")
        XCTAssertLessThan(exit.cpuSeconds, 10, "the TUI left instead of spinning")
        XCTAssertTrue(FileManager.default.fileExists(atPath: part), "the partial is kept")
        let queue = try await cli.run(["queue", "--json"])
        XCTAssertTrue(queue.out.contains("\"state\" : \"queued\"") || queue.out.contains("\"state\":\"queued\""), queue.out)
    }

    /// The TUI opens ncursesw itself when it starts (a download never maps it: LoadedLibrariesTests).
    /// Where it cannot be opened (here a file in its name that is no library, found first on the
    /// loader's path), the TUI says what is wrong and what to install, leaves the terminal alone and
    /// the queue as it was.
    func testATUIWithoutNcurseswSaysWhatToInstall() async throws {
        _ = try await queue(1, size: 200_000, rate: 50_000_000)
        let libs = dir.file("libs")
        try FileManager.default.createDirectory(atPath: libs, withIntermediateDirectories: true)
        try "not a library".write(toFile: libs + "/libncursesw.so.6", atomically: true, encoding: .utf8)
        let terminal = try PseudoTerminal(width: 120, height: 30)
        let tui = try ChildProcess(
            executable: ChildProcess.podqExecutable, arguments: ["tui", "--home", cli.home],
            environment: ["TERM": "xterm-256color", "LANG": "C.UTF-8", "LD_LIBRARY_PATH": libs], directory: dir.path,
            terminal: terminal.device)
        let exit = await Task.detached { tui.wait(timeout: 30) }.value
        // What the terminal showed: the message alone (its error output is the terminal), no escape
        // sequence of a screen set up.
        _ = await waitUntil { terminal.recentOutput.contains("libncursesw6") }
        let shown = terminal.recentOutput
        terminal.close()
        XCTAssertEqual(exit.code, 2, "\(exit) \(shown)")
        XCTAssertTrue(shown.contains("needs ncursesw"), shown)
        XCTAssertTrue(shown.contains("libncursesw.so.6"), "dlerror's words name the file: \(shown)")
        XCTAssertTrue(shown.contains("apt-get install libncursesw6"), shown)
        XCTAssertFalse(shown.contains("\u{1B}"), "no screen was set up: \(shown.debugDescription)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("out/ep1.mp3")), "nothing ran")
        let queue = try await cli.run(["queue", "--json"])
        XCTAssertTrue(queue.out.contains("\"state\" : \"queued\"") || queue.out.contains("\"state\":\"queued\""), queue.out)
    }

    /// The pid of a running process whose command line contains every one of `parts`.
    private func processID(containing parts: [String]) -> pid_t? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = pid_t(entry), pid != getpid(),
                let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { continue }
            let args = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard args.first?.hasSuffix("/podq") == true else { continue }
            if parts.allSatisfy({ part in args.contains(part) }) { return pid }
        }
        return nil
    }
}
