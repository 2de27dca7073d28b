import Foundation
import PodqSQLite
import PodqTestAssertions
import PodqTestSupport
import XCTest

/// `podq play` with a real mpv (Debian's) on audio files the test makes: mpv starts where the episode
/// was left, podq follows the position through its connection to mpv's IPC and stores it when mpv quits
/// (and queues it for the sync server), and an episode heard to the end is marked played. The test
/// drives mpv through a remote socket of its own (`--input-ipc-server` in the player line).
final class ListeningTests: CLITestCase {
    /// Subscribes to a feed of two silent episodes (`short`: 2 s, `long`: 60 s), downloads them, and
    /// sets mpv as the player, with no audio device and no window.
    private func prepare(home: String? = nil) async throws {
        let home = home ?? dir.file("home")
        server.serve(silentWAV(seconds: 2), as: "short.wav", type: "audio/wav")
        server.serve(silentWAV(seconds: 60), as: "long.wav", type: "audio/wav")
        let items = [("short", 2, 2), ("long", 60, 1)].map { name, duration, day in
            "<item><title>\(name)</title><guid>\(name)</guid><pubDate>\(day) Nov 2026 10:00:00 GMT</pubDate><itunes:duration>\(duration)</itunes:duration>"
                + "<enclosure url=\"\(server.url("/static/\(name).wav").absoluteString)\" type=\"audio/wav\"/></item>"
        }.joined()
        server.serve(
            Array(
                ("<?xml version=\"1.0\"?><rss version=\"2.0\" xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\"><channel><title>Quiet</title>"
                    + items + "</channel></rss>").utf8), as: "quiet.xml")
        var (exit, out, err) = try await cli.run(["add", server.url("/static/quiet.xml").absoluteString])
        XCTAssertEqual(exit.code, 0, out + err)
        (exit, out, err) = try await cli.run(["queue", "add", "--latest", "2", "Quiet"])
        XCTAssertEqual(exit.code, 0, out + err)
        (exit, out, err) = try await cli.run(["download"])
        XCTAssertEqual(exit.code, 0, out + err)
        try "player = mpv --no-video --ao=null --no-config --really-quiet --input-ipc-server=\(remoteSocket)\n".write(
            toFile: home + "/config", atomically: true, encoding: .utf8)
    }

    /// The test's own remote control of mpv (not podq's connection, which is a socket pair).
    private var remoteSocket: String { dir.file("remote.sock") }

    /// What of mpv's is in the home (`mpv-<pid>.log`, `.chapters`; an older podq's `.sock`).
    private func mpvFiles(in home: String? = nil) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: home ?? dir.file("home"))) ?? []).filter { $0.hasPrefix("mpv-") }.sorted()
    }

    private func episode(_ guid: String) async throws -> [String: Any] {
        let (_, out, err) = try await cli.run(["episodes", "--json"])
        let list = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]], out + err)
        return try XCTUnwrap(list.first { ($0["guid"] as? String) == guid })
    }

    private func download(of title: String) async throws -> String {
        let (_, out, _) = try await cli.run(["queue", "--json"])
        let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]])
        return String(try XCTUnwrap(rows.first { ($0["title"] as? String)?.hasSuffix(title) == true }?["id"] as? Int))
    }

    /// The position the store holds for episode `guid`, read as another program reads it (podq may
    /// be writing).
    private func storedPosition(of guid: String) -> Int? {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(5)
        let store = try? DatabaseQueue(path: dir.file("home/queue.sqlite"), configuration: configuration)
        return try? store?.read { db in try Int.fetchOne(db, sql: "SELECT position FROM episode WHERE guid = ?", arguments: [guid]) }
    }

    /// A connection to the mpv that podq started, once its remote socket answers.
    private func remote() async -> MPVRemote? {
        var found: MPVRemote?
        await expect(timeout: 15, every: 50) {
            found = MPVRemote(socket: self.remoteSocket)
            return found != nil
        }
        return found
    }

    /// `podq play` stopped from outside (SIGTERM; SIGHUP when its terminal closes): mpv is asked to quit,
    /// the position it reached is stored as on a quit, its log is removed, and podq exits 130.
    func testAPlayStoppedBySIGTERMOrSIGHUPKeepsThePositionAndLeavesNothing() async throws {
        try await prepare()
        let id = try await download(of: "long")
        for (signal, seconds) in [(SIGTERM, 20), (SIGHUP, 40)] {
            let child = try cli.start(["play", id])
            let found = await remote()
            let mpv = try XCTUnwrap(found, "mpv's socket: " + child.standardError)
            await expect(timeout: 10) { ((mpv.send(["get_property", "time-pos"]) as? Double) ?? -1) >= 0 }
            mpv.send(["seek", seconds, "absolute"])
            let moved = await waitUntil(timeout: 5) { ((mpv.send(["get_property", "time-pos"]) as? Double) ?? 0) >= Double(seconds) }
            XCTAssertTrue(moved)
            // podq's follower heard the new place: it stores it as mpv plays (at a seek, and every 10 s).
            await expect(timeout: 10, every: 50) { (self.storedPosition(of: "long") ?? 0) >= seconds }
            child.send(signal)
            let exit = await child.finish(timeout: 15)
            XCTAssertEqual(exit.code, 130, "signal \(signal): " + child.standardOutput + child.standardError)
            XCTAssertTrue(child.standardOutput.contains("stopped at 0:\(seconds / 10)"), child.standardOutput + child.standardError)
            let long = try await episode("long")
            let position = try XCTUnwrap(long["position"] as? Int, "signal \(signal)")
            XCTAssertTrue((seconds...seconds + 4).contains(position), "signal \(signal): \(position)")
            XCTAssertEqual(mpvFiles(), [], "nothing of mpv's is left after signal \(signal)")
        }
    }

    /// A player that fails says why: mpv with no sound device it can open (a server, CI; forced here with a
    /// device that exists nowhere) exits 2, and podq says mpv's own reason, from the command line and on
    /// the TUI's message line (which before said only "status 2"), with where to read more. Nothing of
    /// mpv's is left in the home.
    func testAPlayerWithoutASoundDeviceSaysItsReason() async throws {
        try await prepare()
        try "player = mpv --no-video --no-config --really-quiet --ao=alsa --audio-device=alsa/podq-no-such-device\n"
            .write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        let id = try await download(of: "short")
        let (exit, out, err) = try await cli.run(["play", id])
        XCTAssertEqual(exit.code, 1, out + err)
        XCTAssertTrue(err.contains("The player 'mpv' exited with status 2: Could not open/initialize audio device -> no sound."), err)
        XCTAssertTrue(err.contains("TROUBLESHOOTING.md"), err)
        XCTAssertFalse(out.contains("heard to the end"), out)
        let short = try await episode("short")
        XCTAssertEqual(short["played"] as? Bool, false, "a player that failed heard nothing: not marked played")
        XCTAssertNil(short["position"] as? Int)
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.file("home")).filter { $0.hasPrefix("mpv-") }
        XCTAssertEqual(left, [], "mpv's log is removed")

        let tui = try Tmux(command: "'\(ChildProcess.podqExecutable)' tui --home '\(cli.home)'", width: 200, height: 20)
        defer { tui.stop() }
        let ready = await tui.waitFor { $0.contains("short") && $0.contains("completed") }
        XCTAssertTrue(ready.ok, ready.screen)
        // The row of `short`, found as a person finds it: `/`, its name, Enter.
        tui.send("/")
        tui.send("short")
        tui.send("Enter")
        tui.send("o")
        let said = await tui.waitFor { $0.contains("Could not open/initialize audio device") }
        XCTAssertTrue(said.ok, "the TUI shows mpv's reason:\n\(said.screen)")
        tui.send("q")
    }

    func testAnEpisodeHeardToTheEndIsMarkedPlayed() async throws {
        try await prepare()
        let (exit, out, err) = try await cli.run(["play", try await download(of: "short")])
        XCTAssertEqual(exit.code, 0, out + err)
        XCTAssertTrue(out.contains("heard to the end: marked played"), out + err)
        let short = try await episode("short")
        XCTAssertEqual(short["played"] as? Bool, true)
        XCTAssertEqual(short["position"] as? Int, 2)
    }

    /// Quit halfway: the position is kept; the next play starts there (mpv's own time says so).
    func testThePositionIsKeptAndTheNextPlayStartsThere() async throws {
        try await prepare()
        let id = try await download(of: "long")
        let child = try cli.start(["play", id])
        let first = await remote()
        let mpv = try XCTUnwrap(first, "mpv's socket: " + child.standardError)
        // A second of playback first: podq's own connection to mpv is made by then (a person does not quit sooner).
        await expect(timeout: 10) { ((mpv.send(["get_property", "time-pos"]) as? Double) ?? 0) >= 1 }
        mpv.send(["seek", 25, "absolute"])
        await expect(timeout: 5) { ((mpv.send(["get_property", "time-pos"]) as? Double) ?? 0) >= 25 }
        mpv.send(["quit"])
        let exit = await child.finish()
        XCTAssertEqual(exit.code, 0, "signal \(exit.signal.map(String.init) ?? "none"): " + child.standardOutput + child.standardError)
        XCTAssertTrue(child.standardOutput.contains("stopped at 0:2"), child.standardOutput)
        let long = try await episode("long")
        XCTAssertEqual(long["played"] as? Bool, false)
        let position = try XCTUnwrap(long["position"] as? Int)
        XCTAssertTrue((25...28).contains(position), "\(position)")

        let started = try await playOnce(id)
        XCTAssertGreaterThanOrEqual(started, Double(position) - 1, "mpv started where the episode was left")
    }

    /// `podq play --at` (a hit of `podq grep`): mpv starts there, over the stored position; a time that
    /// is none is refused before anything plays.
    func testPlayAtStartsThereOverTheStoredPlace() async throws {
        try await prepare()
        let id = try await download(of: "long")
        let started = try await playOnce(id, at: "0:42")
        XCTAssertGreaterThanOrEqual(started, 41, "mpv started at --at")
        XCTAssertLessThan(started, 50)
        let (exit, _, err) = try await cli.run(["play", id, "--at", "1:99"])
        XCTAssertEqual(exit.code, 2)
        XCTAssertTrue(err.contains("--at needs a time"), err)
        try "player = true\n".write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        let (other, _, otherErr) = try await cli.run(["play", id, "--at", "42"])
        XCTAssertEqual(other.code, 2, otherErr)
        XCTAssertTrue(otherErr.contains("podq can start mpv, ffplay or vlc at a time, not 'true'"), otherErr)
    }

    /// The chapters beside the file (a `podcast:chapters` sidecar) are mpv's chapter list; `--chapter 2`
    /// starts at the second of the table of contents (a `toc: false` one is not counted).
    func testTheChaptersBesideTheFileAreMPVsAndPlayChapterStartsAtOne() async throws {
        try await prepare()
        let id = try await download(of: "long")
        let folder = dir.file("home/downloads/Quiet")
        let file = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasSuffix("long.wav") })
        let chapters =
            #"{"version":"1.2.0","chapters":[{"startTime":0,"title":"Intro"},{"startTime":10,"title":"Ad","toc":false},"#
            + #"{"startTime":20,"title":"Main = topic; #1"},{"startTime":40,"title":"Outro"}]}"#
        try chapters.write(toFile: folder + "/" + file.replacingOccurrences(of: ".wav", with: ".chapters.json"), atomically: true, encoding: .utf8)

        let child = try cli.start(["play", id, "--chapter", "2"])
        let found = await remote()
        let mpv = try XCTUnwrap(found, "mpv's socket: " + child.standardError)
        var list: [[String: Any]] = []
        await expect(timeout: 10) {
            list = (mpv.send(["get_property", "chapter-list"]) as? [[String: Any]]) ?? []
            return list.count == 3
        }
        XCTAssertEqual(list.map { $0["title"] as? String }, ["Intro", "Main = topic; #1", "Outro"])
        XCTAssertEqual(list.map { $0["time"] as? Double }, [0, 20, 40])
        var at: Double?
        await expect(timeout: 10) {
            at = mpv.send(["get_property", "time-pos"]) as? Double
            return at != nil
        }
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(at), 19, "started at chapter 2 (20 s)")
        mpv.send(["quit"])
        _ = await child.finish()
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("home/mpv-\(child.pid).chapters")), "the chapters file goes with mpv's log")
        let (exit, _, err) = try await cli.run(["play", id, "--chapter", "4"])
        XCTAssertEqual(exit.code, 2)
        XCTAssertTrue(err.contains("There is no chapter 4: the episode has 3 (1 to 3)."), err)
    }

    /// Plays download `id` again: where mpv started (its time once the file is open), then quits it.
    private func playOnce(_ id: String, at: String? = nil) async throws -> Double {
        let child = try cli.start(["play", id] + (at.map { ["--at", $0] } ?? []))
        let found = await remote()
        let mpv = try XCTUnwrap(found, "mpv's socket: " + child.standardError)
        var at: Double?
        await expect(timeout: 10) {
            at = mpv.send(["get_property", "time-pos"]) as? Double  // none until the file is open
            return at != nil
        }
        mpv.send(["quit"])
        let exit = await child.finish()
        XCTAssertEqual(exit.code, 0, "signal \(exit.signal.map(String.init) ?? "none"): " + child.standardOutput + child.standardError)
        return try XCTUnwrap(at)
    }

    /// `kill -9` of podq while mpv plays: mpv quits by itself (its connection to podq closed; it played
    /// on before, with no one to store its place), the place stored as it played (at the seek) survives,
    /// and the next play starts there and removes what the killed one left.
    func testAPlayKilledWithSIGKILLStopsMPVAndKeepsThePlaceStoredWhileItPlayed() async throws {
        try await prepare()
        let id = try await download(of: "long")
        let child = try cli.start(["play", id])
        let found = await remote()
        let mpv = try XCTUnwrap(found, "mpv's remote socket: " + child.standardError)
        let player = try XCTUnwrap(mpv.send(["get_property", "pid"]) as? Double, "mpv's pid")
        await expect(timeout: 10) { ((mpv.send(["get_property", "time-pos"]) as? Double) ?? -1) >= 0 }
        XCTAssertNil(storedPosition(of: "long"), "nothing stored before the first ten seconds")
        mpv.send(["seek", 30, "absolute"])
        await expect(timeout: 10, every: 50) { (self.storedPosition(of: "long") ?? 0) >= 30 }
        child.send(SIGKILL)
        _ = await child.finish(timeout: 10)
        let left = mpvFiles()
        XCTAssertEqual(left, ["mpv-\(child.pid).log"], "a kill -9 leaves mpv's log")
        await expect(timeout: 10) { MPVRemote(socket: self.remoteSocket) == nil }
        XCTAssertNil(MPVRemote(socket: remoteSocket), "mpv quit when podq was killed")
        await expect(timeout: 10) { kill(pid_t(player), 0) == -1 }
        XCTAssertEqual(kill(pid_t(player), 0), -1, "mpv (pid \(Int(player))) is gone")
        let kept = try XCTUnwrap(storedPosition(of: "long"))
        XCTAssertTrue((30...34).contains(kept), "\(kept)")

        let started = try await playOnce(id)
        XCTAssertGreaterThanOrEqual(started, Double(kept) - 1, "mpv started where podq was killed")
        XCTAssertEqual(mpvFiles(), [], "the killed play's log is removed by the next")
    }

    // MARK: - A player that misbehaves (issue 43, points 6 and 7)

    /// A stand-in for mpv in `<dir>/bin/mpv`: it writes the descriptor it was given
    /// (`--input-ipc-client=fd://<n>`) to `seen`, then (unless `events` is `nosocket`) reads podq's
    /// asks on it, sends each line of `events`, and quits once podq has read them.
    private func fakeMPV(_ events: [String]) throws -> String {
        let bin = dir.file("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let python = ProcessInfo.processInfo.environment["PODQ_TEST_PYTHON"] ?? "/usr/bin/python3"
        let script = """
            #!\(python)
            import os, socket, sys
            here = os.path.dirname(os.path.abspath(__file__))
            fd = next((a.split("fd://", 1)[1] for a in sys.argv[1:] if a.startswith("--input-ipc-client=fd://")), "")
            open(os.path.join(here, "seen"), "w").write(fd)
            events = open(os.path.join(here, "events")).read().splitlines()
            if fd and events != ["nosocket"]:
                c = socket.socket(fileno=int(fd))
                c.settimeout(2)
                try:
                    c.recv(4096)
                except OSError:
                    pass
                for line in events:
                    c.sendall((line + "\\n").encode())
                # Ends its side, then waits for podq to read to the end and close (a close with podq's
                # bytes unread would reset the connection).
                c.shutdown(socket.SHUT_WR)
                try:
                    while c.recv(4096):
                        pass
                except OSError:
                    pass
                c.close()

            """
        try script.write(toFile: bin + "/mpv", atomically: true, encoding: .utf8)
        chmod(bin + "/mpv", 0o755)
        try events.joined(separator: "\n").write(toFile: bin + "/events", atomically: true, encoding: .utf8)
        return bin + "/mpv"
    }

    private func change(_ name: String, _ value: String) -> String {
        #"{"event":"property-change","name":"\#(name)","data":\#(value)}"#
    }

    /// Numbers no episode can be, from the player (1e300, -1e300, a duration of 1e19): podq neither
    /// traps nor stores them; the last true position is what is kept.
    func testAbsurdNumbersFromThePlayerAreNeverAPositionAndNeverATrap() async throws {
        try await prepare()
        let id = try await download(of: "long")
        let mpv = try fakeMPV([change("duration", "1e19"), change("time-pos", "1e300"), change("time-pos", "-1e300")])
        try "player = \(mpv)\n".write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        var (exit, out, err) = try await cli.run(["play", id], timeout: 30)
        XCTAssertEqual(exit.code, 0, "no trap (was SIGILL): " + out + err)
        var long = try await episode("long")
        XCTAssertNil(long["position"] as? Int, "nothing absurd stored: \(long)")
        XCTAssertEqual(long["played"] as? Bool, false)

        _ = try fakeMPV([change("time-pos", "1e300"), change("duration", "1e19"), change("time-pos", "31.2"), change("duration", "1e308")])
        (exit, out, err) = try await cli.run(["play", id], timeout: 30)
        XCTAssertEqual(exit.code, 0, out + err)
        long = try await episode("long")
        XCTAssertEqual(long["position"] as? Int, 31, "the last true position: \(long)")
        XCTAssertTrue(out.contains("stopped at 0:31 of 1:00"), "the feed's duration, not 1e308: " + out)
    }

    /// A home deeper than a socket's path can be (107 bytes) still follows the player: the connection is
    /// a socket pair, with no path; a player that never answers on it is said, never a silent loss.
    func testALongHomeStillFollowsThePlayerAndAFailureToFollowIsSaid() async throws {
        let deep = dir.file("home/" + String(repeating: "d", count: 60) + "/" + String(repeating: "e", count: 60))
        cli = PodqInvocation(home: deep, directory: dir.path)
        try await prepare(home: deep)
        let id = try await download(of: "long")
        let mpv = try fakeMPV([change("duration", "60"), change("time-pos", "20")])
        try "player = \(mpv)\n".write(toFile: deep + "/config", atomically: true, encoding: .utf8)
        var (exit, out, err) = try await cli.run(["play", id], timeout: 30)
        XCTAssertEqual(exit.code, 0, out + err)
        let seen = try String(contentsOfFile: dir.file("bin/seen"), encoding: .utf8)
        XCTAssertNotNil(Int32(seen), "mpv is given a descriptor: \(seen)")
        XCTAssertEqual(mpvFiles(in: deep), [], "nothing of mpv's is left")
        let long = try await episode("long")
        XCTAssertEqual(long["position"] as? Int, 20, out + err)

        _ = try fakeMPV(["nosocket"])
        (exit, out, err) = try await cli.run(["play", id], timeout: 30)
        XCTAssertEqual(exit.code, 0, out + err)
        XCTAssertTrue(out.contains("could not follow mpv's position"), out + err)
    }
}
