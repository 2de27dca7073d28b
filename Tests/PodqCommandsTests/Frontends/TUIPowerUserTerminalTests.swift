import Foundation
import PodqSQLite
import PodqTestAssertions
import PodqTestSupport
import XCTest

/// The TUI's keys for a big library, in a real terminal (tmux) against the in-process server:
/// marks with a bulk action, and the detail pane with the show notes read from the store.
final class TUIPowerUserTerminalTests: TerminalTestCase {
    func testTheDetailPaneShowsTheNotesAsPlainTextAndScrolls() async throws {
        try await subscribe(count: 3)
        let tui = try openTUI(width: 100, height: 16)
        tui.send("2")
        let listed = await tui.waitFor { $0.contains("Episode 3") && $0.contains("Episode 1") }
        XCTAssertTrue(listed.ok, listed.screen)
        tui.send("j")  // Episode 2 (newest first)
        tui.send("i")
        let shown = await tui.waitFor { $0.contains("Tom & Jerry’s guide, part 2.") }
        XCTAssertTrue(shown.ok, "the notes, entities read and tags gone:\n\(shown.screen)")
        XCTAssertTrue(shown.screen.contains("Podcast:") && shown.screen.contains("Notes Show"), shown.screen)
        XCTAssertTrue(shown.screen.contains("Duration:") && shown.screen.contains("12:34"), shown.screen)
        XCTAssertFalse(shown.screen.contains("<b>") || shown.screen.contains("&amp;") || shown.screen.contains("alert"), shown.screen)
        // The box is shorter than its lines: it scrolls, and says where it is.
        XCTAssertTrue(shown.screen.contains("of ") && shown.screen.contains("lines"), shown.screen)
        tui.send("G")
        let bottom = await tui.waitFor { $0.contains("our site <https://example.com/notes/2>.") }
        XCTAssertTrue(bottom.ok, "the end of the notes, the link's address after its text:\n\(bottom.screen)")
        XCTAssertTrue(bottom.screen.contains("• first point") && bottom.screen.contains("• second point"), "list items:\n\(bottom.screen)")
        XCTAssertFalse(bottom.screen.contains("Podcast:"), "scrolled past the facts:\n\(bottom.screen)")
        tui.send("\u{1B}")
        let closed = await tui.waitFor { !$0.contains("Tom & Jerry") && $0.contains("Episode 3") }
        XCTAssertTrue(closed.ok, "Esc closes the pane:\n\(closed.screen)")
        tui.send("q")
        await expect(tui) { $0.contains("[exit ") }
    }

    func testMarkedEpisodesAreQueuedTogetherAndMarkedDownloadsPausedTogether() async throws {
        try await subscribe(count: 4)
        let tui = try openTUI(["--jobs", "4"], width: 110, height: 16)
        tui.send("2")
        let listed = await tui.waitFor { $0.contains("Episode 4") }
        XCTAssertTrue(listed.ok, listed.screen)
        // Mark the newest three (Space and v), leaving Episode 1.
        tui.send(" ")
        tui.send("v")
        tui.send(" ")
        let marked = await tui.waitFor { $0.contains("3 marked") }
        XCTAssertTrue(marked.ok, marked.screen)
        XCTAssertTrue(line(marked.screen, containing: "Episode 4").contains("✓ Episode 4"), marked.screen)
        XCTAssertFalse(line(marked.screen, containing: "Episode 1").contains("✓"), marked.screen)
        tui.send("\r")
        let queued = await tui.waitFor { $0.contains("queued 3 episodes") }
        XCTAssertTrue(queued.ok, queued.screen)

        tui.send("1")
        let running = await tui.waitFor { s in (2...4).allSatisfy { self.line(s, containing: "Episode \($0)").hasPrefix("downloading") } }
        XCTAssertTrue(running.ok, running.screen)
        XCTAssertFalse(running.screen.contains("Episode 1"), "the unmarked episode was not queued:\n\(running.screen)")
        tui.send("*")  // every row shown
        tui.send("p")
        let paused = await tui.waitFor { s in (2...4).allSatisfy { self.line(s, containing: "Episode \($0)").hasPrefix("paused") } }
        XCTAssertTrue(paused.ok, "p paused every marked row:\n\(paused.screen)")
        // The rows and the line that says it come from the runner and the command's outcome: the
        // line may be a frame behind the rows (CI once drew the rows first).
        let said = await tui.waitFor { $0.contains("paused 3 downloads") }
        XCTAssertTrue(said.ok, said.screen)
        let idle = await waitUntil { self.server.log.currentInFlight == 0 }
        XCTAssertTrue(idle, "nothing runs")
        // Marks are gone after the action: p now acts on the selected row only.
        tui.send("p")
        let one = await tui.waitFor { $0.contains("resumed d") }
        XCTAssertTrue(one.ok, one.screen)
        // Cancel the rest, marked, after the question.
        tui.send("j")
        tui.send("v")
        tui.send("v")
        tui.send("c")
        let asked = await tui.waitFor { $0.contains("Cancel 2 downloads") }
        XCTAssertTrue(asked.ok, asked.screen)
        tui.send("y")
        let cancelled = await tui.waitFor { $0.contains("cancelled 2 downloads") }
        XCTAssertTrue(cancelled.ok, cancelled.screen)
        let done = await tui.waitFor(timeout: 30) { $0.contains("1 done") }
        XCTAssertTrue(done.ok, done.screen)
        tui.send("q")
        await expect(tui) { $0.contains("[exit ") }
    }

    /// Keys typed in bursts (no pause between them, as a fast typist or a held key sends them): the
    /// last key's frame reaches the terminal (ncurses' typeahead check once left it unsent).
    func testSearchWithNAndSortingByTitle() async throws {
        try await subscribe(count: 12)
        let tui = try openTUI(width: 110, height: 24)
        tui.send("2")
        let listed = await tui.waitFor { $0.contains("Episode 12") && $0.contains("row 1/12") }
        XCTAssertTrue(listed.ok, listed.screen)
        // Newest first: Episode 12 at the top. By title: Episode 1, 10, 11, 12, 2, ...
        tui.send("s")
        let sorted = await tui.waitFor { $0.contains("by title") }
        XCTAssertTrue(sorted.ok, sorted.screen)
        let rows = sorted.screen.split(separator: "\n").filter { $0.contains("Episode ") }.map {
            String($0.split(separator: " ").suffix(2).joined(separator: " "))
        }
        XCTAssertEqual(Array(rows.prefix(5)), ["Episode 1", "Episode 10", "Episode 11", "Episode 12", "Episode 2"], sorted.screen)
        tui.send("S")
        let reversed = await tui.waitFor { $0.contains("by title, reversed") }
        XCTAssertTrue(reversed.ok, reversed.screen)
        XCTAssertTrue(line(reversed.screen, containing: "row 1/12").contains("row 1/12"))
        let first = reversed.screen.split(separator: "\n").first { $0.contains("Episode ") }.map(String.init) ?? ""
        XCTAssertTrue(first.hasSuffix("Episode 9"), reversed.screen)

        // Search: every row stays; the selection goes to the matches. Reversed title order: 9 8 7 6 5 4 3 2 12 11 10 1.
        tui.send("/")
        tui.send("episode 1")
        let found = await tui.waitFor { $0.contains("row 9/12") }
        XCTAssertTrue(found.ok, "the first match, Episode 12, at row 9:\n\(found.screen)")
        tui.send("\r")
        tui.send("n")
        let next = await tui.waitFor { $0.contains("row 10/12") }
        XCTAssertTrue(next.ok, next.screen)
        tui.send("n")
        tui.send("n")
        let last = await tui.waitFor { $0.contains("row 12/12") }
        XCTAssertTrue(last.ok, "Episode 10, then Episode 1, the last match:\n\(last.screen)")
        tui.send("n")
        let round = await tui.waitFor { $0.contains("row 9/12") && $0.contains("went round to the top") }
        XCTAssertTrue(round.ok, round.screen)
        tui.send("N")
        let back = await tui.waitFor { $0.contains("row 12/12") && $0.contains("went round to the bottom") }
        XCTAssertTrue(back.ok, back.screen)
        tui.send("q")
        await expect(tui) { $0.contains("[exit ") }
    }

    /// `/` in the Episodes view finds words of the show notes too (SQLite FTS5, in the background):
    /// "part 7" is in Episode 7's notes only, never in a title.
    func testSearchFindsWordsOfTheShowNotes() async throws {
        try await subscribe(count: 12)
        let tui = try openTUI(width: 110, height: 24)
        tui.send("2")
        let listed = await tui.waitFor { $0.contains("Episode 12") && $0.contains("row 1/12") }
        XCTAssertTrue(listed.ok, listed.screen)
        tui.send("/")
        tui.send("Part 7")
        let found = await tui.waitFor { $0.contains("row 6/12") }
        XCTAssertTrue(found.ok, "Episode 7, newest first the sixth row:\n\(found.screen)")
        tui.send("\r")
        let told = await tui.waitFor { $0.contains("1 episode matches (1 only in the show notes") }
        XCTAssertTrue(told.ok, told.screen)
        // Markup is not searched: "script" and "href" are in every episode's HTML, not in its text.
        tui.send("/")
        tui.send("href")
        tui.send("\r")
        let none = await tui.waitFor { $0.contains("Nothing matches “href”.") }
        XCTAssertTrue(none.ok, none.screen)
        tui.send("q")
        await expect(tui) { $0.contains("[exit ") }
    }

    /// Accents written as a letter and a combining mark, and flags, reach the terminal whole (ncurses
    /// was handed only a cluster's first scalar).
    func testClustersAreDrawnWhole() async throws {
        server.serve(
            Array(
                """
                <?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Cafe\u{301} 🇯🇵 Radio</title>
                <item><title>Episode e\u{301}te\u{301} 🇫🇷 and 🇯🇵</title><guid>c1</guid><enclosure url="/data/c1.mp3?size=1000&amp;seed=1" type="audio/mpeg"/></item>
                <item><title>Coder 👩\u{200D}💻 here</title><guid>c2</guid><enclosure url="/data/c2.mp3?size=1000&amp;seed=2" type="audio/mpeg"/></item>
                </channel></rss>
                """.utf8), as: "clusters.xml")
        let added = try await cli.run(["add", server.url("/static/clusters.xml").absoluteString])
        XCTAssertEqual(added.exit.code, 0, added.out + added.err)
        let tui = try openTUI(width: 100, height: 10)
        tui.send("2")
        let shown = await tui.waitFor { $0.contains("Episode été") }
        XCTAssertTrue(shown.ok, "the combining accents are kept:\n\(shown.screen)")
        XCTAssertTrue(shown.screen.contains("🇫🇷") && shown.screen.contains("🇯🇵"), "both halves of each flag:\n\(shown.screen)")
        XCTAssertTrue(shown.screen.contains("Café"), shown.screen)
        // A ZWJ sequence takes its 2 cells as its first emoji (a curses cell holds one spacing character): the text after it stays in place.
        XCTAssertTrue(shown.screen.contains("Coder 👩 here"), shown.screen)
        tui.send("q")
        await expect(tui) { $0.contains("[exit ") }
    }

    /// `]` raises the per-host cap live (the server sees a second transfer), the status line shows
    /// it, and the config keeps it.
    func testTheBracketsChangeThePerHostCapLive() async throws {
        _ = try await queue(4, size: 4_000_000, rate: 300_000)
        let tui = try openTUI(["--jobs", "4", "--per-host", "1"], width: 130, height: 12)
        let one = await waitUntil { self.server.log.currentInFlight == 1 }
        XCTAssertTrue(one, "the cap holds one, saw \(server.log.currentInFlight)")
        let shown = await tui.waitFor { $0.contains("active, 1 a host") }
        XCTAssertTrue(shown.ok, shown.screen)
        tui.send("]")
        let two = await waitUntil { self.server.log.currentInFlight == 2 }
        XCTAssertTrue(two, "raised live, saw \(server.log.currentInFlight)")
        let said = await tui.waitFor { $0.contains("active, 2 a host") && $0.contains("2 downloads at once from one host") }
        XCTAssertTrue(said.ok, said.screen)
        let config = (try? String(contentsOfFile: cli.home + "/config", encoding: .utf8)) ?? ""
        XCTAssertTrue(config.contains("per-host-downloads = 2"), config)
        tui.send("P")
        await expect { self.server.log.currentInFlight == 0 }
        tui.send("q")
        await expect(tui) { $0.contains("[exit ") }
    }

    /// `u` says which feeds brought new episodes.
    func testARefreshSaysWhichFeedsHaveNewEpisodes() async throws {
        try await subscribe(count: 2)
        let tui = try openTUI(width: 120, height: 12)
        let read = await tui.waitFor { $0.contains("3 Podcasts (1)") }
        XCTAssertTrue(read.ok, read.screen)
        tui.send("u")
        let nothing = await tui.waitFor { $0.contains("refreshed 1 feed: 0 new episodes, 1 with nothing new") }
        XCTAssertTrue(nothing.ok, nothing.screen)
        serveFeed(count: 4)  // two episodes more
        tui.send("u")
        let new = await tui.waitFor { $0.contains("refreshed 1 feed: 2 new episodes · Notes Show: 2 new") }
        XCTAssertTrue(new.ok, new.screen)
        XCTAssertTrue(new.screen.contains("2 Episodes (4)"), "the library shows them:\n\(new.screen)")
        tui.send("q")
        await expect(tui) { $0.contains("[exit ") }
    }

    /// Feed work of another process (`podq add`, `podq refresh` from cron) shows up in an open TUI
    /// within seconds: it looks at the podcasts' stamps every 5 s and reads the library again.
    func testAnotherProcesssFeedWorkShowsUp() async throws {
        try await subscribe(count: 2)
        let tui = try openTUI(width: 120, height: 12)
        let shown = await tui.waitFor { $0.contains("2 Episodes (2)") }
        XCTAssertTrue(shown.ok, shown.screen)
        serveFeed(count: 5)
        let refreshed = try await cli.run(["refresh"])
        XCTAssertEqual(refreshed.exit.code, 0, refreshed.out + refreshed.err)
        let more = await tui.waitFor(timeout: 20) { $0.contains("2 Episodes (5)") }
        XCTAssertTrue(more.ok, "a refresh by another process:\n\(more.screen)")
        server.serve(
            Array(
                """
                <?xml version="1.0"?><rss version="2.0"><channel><title>Second Show</title>
                <item><title>Only one</title><guid>s1</guid><enclosure url="/data/s1.mp3?size=1000" type="audio/mpeg"/></item>
                </channel></rss>
                """.utf8), as: "second.xml")
        let added = try await cli.run(["add", server.url("/static/second.xml").absoluteString])
        XCTAssertEqual(added.exit.code, 0, added.out + added.err)
        let both = await tui.waitFor(timeout: 20) { $0.contains("3 Podcasts (2)") && $0.contains("2 Episodes (6)") }
        XCTAssertTrue(both.ok, "a feed added by another process:\n\(both.screen)")
        tui.send("q")
        await expect(tui) { $0.contains("[exit ") }
    }

    /// From the Podcasts view, `Q` queues the latest N or every new episode; `C` then clears the
    /// completed rows and keeps their files.
    func testQQueuesAPodcastsLatestOrNewEpisodesAndCClearsCompletedRows() async throws {
        try await subscribe(count: 4)
        let tui = try openTUI(["--jobs", "4"], width: 130, height: 14)
        tui.send("3")
        let listed = await tui.waitFor { $0.contains("Notes Show") }
        XCTAssertTrue(listed.ok, listed.screen)
        tui.send("Q")
        tui.send("2")
        let asked = await tui.waitFor { $0.contains("Queue from Notes Show: the latest 2") }
        XCTAssertTrue(asked.ok, asked.screen)
        tui.send("\r")
        let two = await tui.waitFor { $0.contains("queued 2 episodes") }
        XCTAssertTrue(two.ok, two.screen)
        tui.send("Q")
        tui.send("\r")
        let rest = await tui.waitFor { $0.contains("queued 2 episodes") && $0.contains("Downloads (4)") }
        XCTAssertTrue(rest.ok, "every new one: the two older:\n\(rest.screen)")
        tui.send("Q")
        tui.send("\r")
        let none = await tui.waitFor { $0.contains("nothing new to queue") }
        XCTAssertTrue(none.ok, none.screen)
        tui.send("1")
        let done = await tui.waitFor(timeout: 30) { $0.contains("4 done") }
        XCTAssertTrue(done.ok, done.screen)
        tui.send("C")
        let cleared = await tui.waitFor { $0.contains("Downloads (0)") && $0.contains("removed 4 rows; files kept") }
        XCTAssertTrue(cleared.ok, cleared.screen)
        let files = (try? FileManager.default.subpathsOfDirectory(atPath: cli.home + "/downloads"))?.filter { $0.hasSuffix(".mp3") } ?? []
        XCTAssertEqual(files.count, 4, "the files stay: \(files)")
        tui.send("q")
        await expect(tui) { $0.contains("[exit ") }
    }

    /// A bulk action runs beside the keys' work, not in front of it, and says so: `C` on completed rows
    /// while another program holds the database's write lock says "removing 3 rows…" at once, the
    /// detail pane of an episode still opens meanwhile, and the rows go when the lock comes free.
    func testABulkActionRunsInTheBackgroundAndSaysSo() async throws {
        try await subscribe(count: 3)
        let queued = try await cli.run(["queue", "add", "1", "2", "3"])
        XCTAssertEqual(queued.exit.code, 0, queued.out + queued.err)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)  // podq may be writing its progress at that moment
        let other = try DatabaseQueue(path: cli.home + "/queue.sqlite", configuration: configuration)
        try await other.write { db in try db.execute(sql: "UPDATE download SET state = 'completed'") }
        let tui = try openTUI(width: 110, height: 16)
        let done = await tui.waitFor { $0.contains("3 done") }
        XCTAssertTrue(done.ok, done.screen)
        try await other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        tui.send("C")
        let saying = await tui.waitFor { $0.contains("removing 3 rows…") }
        XCTAssertTrue(saying.ok, "said at once, though the store is locked:\n\(saying.screen)")
        tui.send("2")
        tui.send("j")
        tui.send("i")
        let detail = await tui.waitFor { $0.contains("Episode 2") && $0.contains("Download:  d2 completed") }
        XCTAssertTrue(detail.ok, "the detail pane does not wait for the bulk action:\n\(detail.screen)")
        XCTAssertFalse(detail.screen.contains("removed 3 rows"), detail.screen)
        try await other.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
        let cleared = await tui.waitFor(timeout: 30) { $0.contains("removed 3 rows; files kept") }
        XCTAssertTrue(cleared.ok, cleared.screen)
        let left = try await other.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM download") }
        XCTAssertEqual(left, 0)
        tui.send("q")  // closes the detail pane
        await expect(tui) { !$0.contains("Download:  d2") }
        tui.send("q")
        await expect(tui) { $0.contains("[exit ") }
    }
}
