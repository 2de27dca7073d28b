import Foundation
import PodqSQLite
import PodqTestAssertions
import PodqTestSupport
import XCTest

/// Played marks that last, and the mouse, in a real terminal (tmux) against the in-process server.
final class TUIMarksAndMouseTerminalTests: TerminalTestCase {
    /// `m` marks an episode played: the state column and the Podcasts view's NEW count follow at
    /// once, it lasts (a refresh, a restart), and `podq episodes --new` leaves it out.
    func testMMarksPlayedAndItLasts() async throws {
        try await subscribe(count: 3)
        var tui = try openTUI(width: 120, height: 12)
        tui.send("3")
        let counts = await tui.waitFor { self.line($0, containing: "Notes Show").hasPrefix("3        3") }
        XCTAssertTrue(counts.ok, "EPISODES 3, NEW 3:\n\(counts.screen)")
        tui.send("2")
        tui.send("m")
        let played = await tui.waitFor { self.line($0, containing: "Episode 3").hasPrefix("played") }
        XCTAssertTrue(played.ok, played.screen)
        tui.send("3")
        let fewer = await tui.waitFor { self.line($0, containing: "Notes Show").hasPrefix("3        2") }
        XCTAssertTrue(fewer.ok, "NEW 2:\n\(fewer.screen)")
        tui.send("u")
        await expect(tui) { $0.contains("refreshed 1 feed") }
        tui.send("q")
        await expect(tui) { $0.contains("[exit ") }
        tui.stop()

        let (listed, out, err) = try await cli.run(["episodes", "--new", "--json"])
        XCTAssertEqual(listed.code, 0, err)
        XCTAssertFalse(out.contains("Episode 3"), out)
        XCTAssertTrue(out.contains("Episode 2") && out.contains("\"played\":false"), out)
        let all = try await cli.run(["episodes", "--json"]).out
        XCTAssertTrue(all.contains("\"played\":true"), "kept through the refresh: \(all)")

        tui = try openTUI(width: 120, height: 12)
        tui.send("2")
        let again = await tui.waitFor { self.line($0, containing: "Episode 3").hasPrefix("played") }
        XCTAssertTrue(again.ok, "after a restart:\n\(again.screen)")
        tui.send("m")
        let unplayed = await tui.waitFor { self.line($0, containing: "Episode 3").hasPrefix("new") }
        XCTAssertTrue(unplayed.ok, "m again: not played:\n\(unplayed.screen)")
        tui.send("q")
        await expect(tui) { $0.contains("[exit ") }
    }

    /// A click (as the terminal reports it, X10 encoding) selects a row and opens a view; with
    /// `mouse = false` the TUI leaves the mouse alone.
    func testAClickSelectsARowAndATab() async throws {
        _ = try await queue(6, size: 1_000_000, rate: 100_000)
        // A press then a release, as xterm reports them without SGR: ESC [ M, 32 + button (3: released),
        // 33 + column, 33 + line.
        func click(x: Int, y: Int) -> String {
            let at = String(UnicodeScalar(UInt8(33 + x))) + String(UnicodeScalar(UInt8(33 + y)))
            return "\u{1B}[M " + at + "\u{1B}[M#" + at
        }
        var tui = try openTUI(["--jobs", "1"], width: 120, height: 14)
        let listed = await tui.waitFor { $0.contains("row 1/6") }
        XCTAssertTrue(listed.ok, listed.screen)
        tui.send("-l", click(x: 10, y: 5))
        let row = await tui.waitFor { $0.contains("row 4/6") }
        XCTAssertTrue(row.ok, "the fourth row (line 5):\n\(row.screen)")
        tui.send("-l", click(x: 40, y: 0))
        let podcasts = await tui.waitFor { $0.contains("No subscriptions") }
        XCTAssertTrue(podcasts.ok, "the Podcasts tab:\n\(podcasts.screen)")
        tui.send("q")
        await expect(tui) { $0.contains("[exit ") }
        tui.stop()

        try "mouse = false\n".write(toFile: cli.home + "/config", atomically: true, encoding: .utf8)
        tui = try openTUI(["--jobs", "1"], width: 120, height: 14)
        await expect(tui) { $0.contains("row 1/6") }
        XCTAssertEqual(tui.display("#{mouse_any_flag}"), "0", "the TUI did not ask for the mouse")
        tui.send("q")
        await expect(tui) { $0.contains("[exit ") }
    }
}
