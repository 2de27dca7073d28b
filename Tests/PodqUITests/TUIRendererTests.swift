import PodqCore
import PodqUI
import XCTest

/// Whole frames: state and snapshot in, text out, compared with the expected screen.
final class TUIRendererTests: XCTestCase {
    static let downloads = [
        DownloadRow(
            id: 1, title: "Show — Episode one", state: .downloading, fraction: 0.5, received: 5_000_000,
            expected: 10_000_000, speed: 1_250_000, eta: 4),
        DownloadRow(
            id: 2, title: "Show — Live stream", state: .downloading, fraction: nil, received: 3_000_000, expected: nil,
            speed: 500_000, eta: nil, estimate: 40_000_000),
        DownloadRow(id: 3, title: "ポッドキャスト 🎧 第一回", state: .queued, fraction: nil, received: 0, expected: nil, speed: 0, eta: nil),
        DownloadRow(id: 4, title: "Paused one", state: .paused, fraction: 0.25, received: 250, expected: 1_000, speed: 0, eta: nil),
        DownloadRow(
            id: 5, title: "Gone", state: .failed(reason: "404: The server has no file at http://x/y"), fraction: nil,
            received: 0, expected: nil, speed: 0, eta: nil, error: "404: The server has no file at http://x/y"),
        DownloadRow(id: 6, title: "Changed my mind", state: .cancelled, fraction: nil, received: 0, expected: nil, speed: 0, eta: nil),
        DownloadRow(id: 7, title: "Done", state: .completed, fraction: 1, received: 2_000, expected: 2_000, speed: 0, eta: nil),
    ]

    private func frame(
        _ state: inout TUIState, _ snapshot: TUISnapshot = TUISnapshot(downloads: downloads), width: Int = 100,
        height: Int = 13
    ) -> String {
        TUIRenderer().render(&state, snapshot, width: width, height: height).text
    }

    /// Before the library was read once, the Episodes and Podcasts views say it is being read, never
    /// "No episodes: subscribe…" (issue 30, point 4); once read, an empty library says so.
    func testAnUnreadLibraryIsNeverShownAsEmpty() {
        var state = TUIState()
        state.view = .episodes
        var snapshot = TUISnapshot(downloads: Self.downloads)
        snapshot.libraryLoading = true
        XCTAssertTrue(frame(&state, snapshot).contains("Reading the library…"))
        XCTAssertFalse(frame(&state, snapshot).contains("No episodes"))
        state.view = .podcasts
        XCTAssertTrue(frame(&state, snapshot).contains("Reading the library…"))
        snapshot.libraryLoading = false
        XCTAssertTrue(frame(&state, snapshot).contains("No subscriptions"))
    }

    /// A view whose rows a filter hides says which filter and how to see them again, never "press a to
    /// add a podcast" over a queue of seven (issue 41, point 12).
    func testAViewEmptiedByAFilterSaysWhichFilter() {
        var state = TUIState()
        state.stateFilter[.downloads] = .paused
        state.filter[.downloads] = "zzz"
        let both = frame(&state, TUISnapshot(downloads: Self.downloads), width: 140)
        XCTAssertTrue(both.contains("No rows: nothing matches “zzz” and only paused are shown (Esc clears the filter, F shows the next state)."), both)
        state.filter[.downloads] = nil
        state.stateFilter[.downloads] = nil
        state.filter[.downloads] = "zzz"
        let text = frame(&state, TUISnapshot(downloads: Self.downloads), width: 140)
        XCTAssertTrue(text.contains("No rows: nothing matches “zzz” (Esc clears the filter)."), text)
        XCTAssertFalse(text.contains("podcast's name"), text)
        state.filter[.downloads] = nil
        XCTAssertTrue(frame(&state, TUISnapshot(downloads: [])).contains("Nothing here yet."), "an empty queue is still said as one")
    }

    func testDownloadsViewShowsEveryStateTheStatusAndTheSelectedFailure() {
        var state = TUIState()
        state.selectedID[.downloads] = 5
        XCTAssertEqual(
            frame(&state),
            """
             1 Downloads (7)   2 Episodes (0)   3 Podcasts (0)
            STATE       TITLE                        PROGRESS            % RECEIVED / TOTAL    SPEED      ETA
            downloading Show — Episode one           ████████········  50% 5.0 MB / 10.0 MB    1.2 MB/s   4s
            downloading Show — Live stream           ███·············   ?% 3.0 MB / ~40.0 MB   500.0 KB/s -
            queued      ポッドキャスト 🎧 第一回     ················   ?% 0 B / ?             -          -
            paused      Paused one                   ████············  25% 250 B / 1.0 KB      -          -
            failed      Gone                         ················   ?% 0 B / ?             -          -
            cancelled   Changed my mind              ················   ?% 0 B / ?             -          -
            completed   Done                         ████████████████ 100% 2.0 KB / 2.0 KB     -          -

             2/3 active, 2 a host · 1.8 MB/s · 1 queued · 1 paused · 1 failed · 1 done · row 5/7
            d5 failed: 404: The server has no file at http://x/y
            ↑↓ select  Tab view  a add  p pause  c cancel  r retry  Enter next  K/J move  ? help  q quit
            """)
    }

    /// Under a limit the total speed shown is never above it: the downloads keep to it over every second,
    /// and a meter above it is reads arriving in bursts (issue 41, point 12). The limit is said in the same
    /// units as the speeds (`2M` in the config is the "2.0 MB/s" shown).
    func testTheTotalSpeedShownNeverExceedsTheLimit() {
        var state = TUIState()
        let limited = TUISnapshot(downloads: Self.downloads, rateLimit: 1_000_000)
        let status = frame(&state, limited, width: 150).split(separator: "\n").first { $0.contains("active") } ?? ""
        XCTAssertTrue(status.contains("· 1.0 MB/s (max 1.0 MB/s) ·"), String(status))
        let free = frame(&state, TUISnapshot(downloads: Self.downloads), width: 150).split(separator: "\n").first { $0.contains("active") } ?? ""
        XCTAssertTrue(free.contains("· 1.8 MB/s ·"), "without a limit, the meter as it is: \(free)")
    }

    func testTheStatusLineSaysWhenRowsWaitForTheirHost() {
        var state = TUIState()
        let snapshot = TUISnapshot(downloads: Self.downloads, limit: 6, waitingForHost: 1, perHost: 2)
        let status = frame(&state, snapshot, width: 150).split(separator: "\n").first { $0.contains("active") }
        XCTAssertEqual(
            status.map(String.init),
            " 2/6 active, 2 a host · 1.8 MB/s · 1 queued (1 wait: 2 at once from one host, ] raises it) · 1 paused · 1 failed · 1 done · row 1/7")
    }

    /// At 160 columns the status line has room for the overall gauge: the unfinished downloads'
    /// bytes of their whole size (the estimate counts for a length the server has not told).
    func testTheStatusLineEndsWithTheOverallGaugeWhereThereIsRoom() {
        var state = TUIState()
        let status = frame(&state, TUISnapshot(downloads: Self.downloads), width: 160).split(separator: "\n").first { $0.contains("active") }
        XCTAssertEqual(
            status.map(String.init), " 2/3 active, 2 a host · 1.8 MB/s · 1 queued · 1 paused · 1 failed · 1 done · row 1/7 · ▕█▎      ▏ 16% of 50.0 MB")
    }

    /// The speed's sparkline follows the speed where the parts left room: up to 30 seconds wide,
    /// narrower on a narrower screen, and not at all when nothing else fits.
    func testTheSpeedSparklineTakesTheRoomTheStatusLineLeaves() {
        var state = TUIState()
        var snapshot = TUISnapshot(downloads: Self.downloads)
        snapshot.speedHistory = [0, 1, 2, 3, 4, 5, 6, 7, 8] + Array(repeating: 8, count: 40)
        let wide = frame(&state, snapshot, width: 200).split(separator: "\n").first { $0.contains("active") }.map(String.init) ?? ""
        XCTAssertEqual(
            wide,
            " 2/3 active, 2 a host · 1.8 MB/s " + String(repeating: "█", count: 30)
                + " · 1 queued · 1 paused · 1 failed · 1 done · row 1/7 · ▕█▎      ▏ 16% of 50.0 MB")
        let fits = frame(&state, snapshot, width: 100).split(separator: "\n").first { $0.contains("active") }.map(String.init) ?? ""
        XCTAssertEqual(fits, " 2/3 active, 2 a host · 1.8 MB/s " + String(repeating: "█", count: 15) + " · 1 queued · 1 paused · 1 failed · 1 done · row 1/7")
        XCTAssertEqual(DisplayWidth.of(fits), 100, "the room the parts left, to the last cell")
        let narrow = frame(&state, snapshot, width: 40).split(separator: "\n").first { $0.contains("active") }.map(String.init) ?? ""
        XCTAssertEqual(narrow, " 2/3 active, 2 a host · 1.8 MB/s", "no room left")
    }

    func testAt40ColumnsColumnsDropOutAndWideTitlesStayAligned() {
        var state = TUIState()
        let text = frame(&state, width: 40, height: 9)
        XCTAssertEqual(
            text,
            """
             1 Downloads (7)   2 Episodes (0)   3 Po
            STATE       TITLE        PROGRESS      %
            downloading Episode one  █████·····  50%
            downloading Live stream  ███·······   ?%
            queued      ポッドキャ…  ··········   ?%
            paused      Paused one   ██▌·······  25%
             2/3 active, 2 a host · 1.8 MB/s

            ↑↓ select  Tab view  ? help  q quit
            """)
        XCTAssertTrue(text.split(separator: "\n").allSatisfy { DisplayWidth.of(String($0)) <= 40 }, "nothing wraps")
    }

    func testEpisodesViewWithAFilterAndThePodcastsView() {
        let snapshot = TUISnapshot(
            episodes: [
                EpisodeRow(
                    id: 10, podcastId: 1, podcast: "Tech Talk", title: "Swift on Linux", published: 1_763_596_800, duration: 3723,
                    length: 52_000_000, state: .new),
                EpisodeRow(
                    id: 11, podcastId: 1, podcast: "Tech Talk", title: "ncurses in 2026", published: 1_763_000_000, duration: 95,
                    length: nil, state: .completed),
                EpisodeRow(
                    id: 12, podcastId: 2, podcast: "日本語ラジオ", title: "第一回", published: nil, duration: nil, length: nil,
                    state: .queued),
            ],
            podcasts: [
                PodcastRow(
                    id: 1, title: "Tech Talk", url: "https://example.org/feed", episodes: 2, lastRefresh: 1_763_596_800, error: nil,
                    autoQueue: true, repairs: "repaired 1 control character"),
                PodcastRow(
                    id: 2, title: "日本語ラジオ", url: "https://example.jp/rss", episodes: 1, lastRefresh: nil,
                    error: "404: The server has no file at https://example.jp/rss", autoQueue: false),
            ])
        var state = TUIState()
        state.view = .episodes
        XCTAssertEqual(
            frame(&state, snapshot, width: 90, height: 8),
            """
             1 Downloads (0)   2 Episodes (3)   3 Podcasts (2)
            STATE       DATE       LENGTH   SIZE      PODCAST              EPISODE
            new         2025-11-20 1:02:03  52.0 MB   Tech Talk            Swift on Linux
            completed   2025-11-13 1:35               Tech Talk            ncurses in 2026
            queued                                    日本語ラジオ         第一回
             0/3 active, 2 a host · 0 B/s · 0 queued · 0 failed · 0 done · row 1/3

            ↑↓ select  Tab view  Enter queue  / search  f filter  Esc all  a add  ? help  q quit
            """)

        state.filter[.episodes] = "LINUX"
        let filtered = frame(&state, snapshot, width: 90, height: 8)
        XCTAssertTrue(filtered.contains("Swift on Linux") && !filtered.contains("ncurses"), filtered)
        XCTAssertTrue(filtered.hasPrefix(" 1 Downloads (0)   2 Episodes (3)   3 Podcasts (2)") && filtered.contains("filter: LINUX"), filtered)

        state.view = .podcasts
        state.selectedID[.podcasts] = 2
        XCTAssertEqual(
            frame(&state, snapshot, width: 90, height: 7),
            """
             1 Downloads (0)   2 Episodes (3)   3 Podcasts (2)
            EPISODES NEW   DONE  REFRESHED  AUTO FEED     PODCAST
            2        1     1     2025-11-20 auto repaired Tech Talk
            1        0     0                     failed   日本語ラジオ
             0/3 active, 2 a host · 0 B/s · 0 queued · 0 failed · 0 done · row 2/2
            last refresh failed: 404: The server has no file at https://example.jp/rss
            ↑↓ select  Tab view  Enter episodes  a add  u refresh  x unsubscribe  ? help  q quit
            """)
        state.selectedID[.podcasts] = 1
        XCTAssertTrue(frame(&state, snapshot, width: 90, height: 7).contains("read with repairs: repaired 1 control character"))
    }

    func testPromptsAndTheHelpOverlay() {
        var state = TUIState()
        state.mode = .addingFeed("https://exa")
        XCTAssertTrue(frame(&state).contains("Add a podcast: https://exa▏  a feed URL, or words to search the directories"))
        state.mode = .confirming(.removeCompleted(id: 7, title: "Done"))
        XCTAssertTrue(frame(&state).contains("Remove \"Done\" from the queue? y: and delete its file · k: keep the file · any other key: cancel"))
        state.mode = .filtering
        state.filter[.downloads] = "show"
        let filtered = frame(&state)
        XCTAssertTrue(filtered.contains("Filter: show▏"), filtered)
        XCTAssertTrue(filtered.contains("Episode one") && !filtered.contains("Paused one"), filtered)

        state = TUIState()
        state.mode = .help
        let help = frame(&state, width: 100, height: 24)
        for (key, text) in HelpOverlay.keys() {
            XCTAssertTrue(help.contains(key) && help.contains(text), "help lists \(key):\n\(help)")
        }
        XCTAssertTrue(help.contains("┌─ Keys ─"), help)
        XCTAssertTrue(help.contains("Any key closes this help."), "at 100×24 every key fits: \(help)")
    }

    /// At 40×10 the help shows part of the keys, says where the reader is, and scrolls (↓, PgDn, G) to
    /// every one of them; any other key closes it. A long message never puts the detail box's border on
    /// the status line (issue 41, point 12).
    func testTheHelpScrollsOnASmallScreenAndTheDetailBoxKeepsOffTheStatusLine() {
        var state = TUIState()
        _ = TUIController.handle(.character("?"), state: &state, snapshot: TUISnapshot(downloads: Self.downloads), pageSize: 5)
        XCTAssertEqual(state.mode, .help)
        var seen = ""
        let first = frame(&state, width: 40, height: 10)
        XCTAssertTrue(first.contains("1–7 of"), first)
        for _ in 0..<200 {
            seen += frame(&state, width: 40, height: 10)
            _ = TUIController.handle(.down, state: &state, snapshot: TUISnapshot(downloads: Self.downloads), pageSize: 5)
        }
        XCTAssertEqual(state.mode, .help, "↓ scrolls, it does not close")
        for (_, text) in HelpOverlay.keys() {
            XCTAssertTrue(seen.replacingOccurrences(of: "│", with: "").contains(text.prefix(12)), "scrolling shows \(text)")
        }
        _ = TUIController.handle(.character("x"), state: &state, snapshot: TUISnapshot(downloads: Self.downloads), pageSize: 5)
        XCTAssertEqual(state.mode, .normal, "another key closes it")

        state.mode = .detail
        state.detail = Detail(view: .downloads, id: 5, title: "Gone", fields: [.init("File", "/a")], notes: [])
        state.selectedID[.downloads] = 5  // a failed row: its error is the message, two lines at 40 cells
        let lines = frame(&state, width: 40, height: 10).split(separator: "\n", omittingEmptySubsequences: false)
        let status = try? XCTUnwrap(lines.firstIndex { $0.contains("active,") })
        let border = lines.firstIndex { $0.hasPrefix("└") }
        XCTAssertNotNil(status, lines.joined(separator: "\n"))
        XCTAssertLessThan(border ?? 99, status ?? 0, "the box ends above the status line:\n" + lines.joined(separator: "\n"))
    }

    func testScrollingKeepsTheSelectionOnScreen() {
        let rows = (1...50).map {
            DownloadRow(
                id: $0, title: "Episode \($0)", state: .queued, fraction: nil, received: 0, expected: nil,
                speed: 0, eta: nil)
        }
        var state = TUIState()
        state.selectedID[.downloads] = 40
        let text = frame(&state, TUISnapshot(downloads: rows), width: 90, height: 10)
        let table = text.split(separator: "\n").dropFirst(2).prefix(5).map { String($0) }
        XCTAssertEqual(table.last?.contains("Episode 40"), true, text)
        XCTAssertTrue(text.contains("row 40/50"), text)
    }

    func testRawControlCharactersNeverReachTheGrid() {
        let evil = DownloadRow(
            id: 1, title: "\u{1B}]0;owned\u{07}Evil\u{1B}[2J\u{9B}31m", state: .failed(reason: "x"), fraction: nil,
            received: 0, expected: nil, speed: 0, eta: nil, error: "bad\u{1B}[31m\r\nline")
        var state = TUIState()
        let grid = TUIRenderer().render(&state, TUISnapshot(downloads: [evil]), width: 80, height: 8)
        XCTAssertFalse(grid.text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) }, grid.text)
        XCTAssertTrue(grid.text.contains("Evil"))
    }
}
