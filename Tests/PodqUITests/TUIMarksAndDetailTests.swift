import PodqCore
import PodqUI
import XCTest

/// Marks and bulk actions, and the detail pane: keys in, state and actions out; frames as text.
final class TUIMarksAndDetailTests: XCTestCase {
    private let snapshot = TUISnapshot(
        downloads: [
            DownloadRow(id: 1, title: "One", state: .downloading, fraction: 0.5, received: 5, expected: 10, speed: 1, eta: 5),
            DownloadRow(id: 2, title: "Two", state: .paused, fraction: 0.2, received: 2, expected: 10, speed: 0, eta: nil),
            DownloadRow(id: 3, title: "Three", state: .failed(reason: "404"), fraction: nil, received: 0, expected: nil, speed: 0, eta: nil),
            DownloadRow(id: 4, title: "Four", state: .completed, fraction: 1, received: 10, expected: 10, speed: 0, eta: nil),
        ],
        episodes: [
            EpisodeRow(id: 20, podcastId: 7, podcast: "Show", title: "Newest", published: 2, duration: nil, length: nil, state: .new),
            EpisodeRow(id: 21, podcastId: 7, podcast: "Show", title: "Middle", published: 1.5, duration: nil, length: nil, state: .new),
            EpisodeRow(id: 22, podcastId: 8, podcast: "Other", title: "Older", published: 1, duration: nil, length: nil, state: .new),
        ],
        podcasts: [PodcastRow(id: 7, title: "Show", url: "u", episodes: 2, lastRefresh: nil, error: nil, autoQueue: false)])

    private func press(_ keys: Key..., state: inout TUIState, pageSize: Int = 2) -> [TUIAction] {
        keys.flatMap { TUIController.handle($0, state: &state, snapshot: snapshot, pageSize: pageSize) }
    }

    func testVMarksAndMovesOnStarMarksAllShownAndEscClearsMarksFirst() {
        var state = TUIState()
        _ = press(.character("v"), state: &state)
        XCTAssertEqual(state.marked[.downloads], [1])
        XCTAssertEqual(state.selectedID[.downloads], 2, "v moves to the next row")
        _ = press(.character("k"), .character("v"), state: &state)
        XCTAssertEqual(state.marked[.downloads], [], "v again unmarks")
        _ = press(.character("*"), state: &state)
        XCTAssertEqual(state.marked[.downloads], [1, 2, 3, 4])
        _ = press(.character("*"), state: &state)
        XCTAssertNil(state.marked[.downloads], "* with every row marked clears them")
        // With a filter, * marks only the rows shown.
        state.filter[.downloads] = "o"
        _ = press(.character("*"), state: &state)
        XCTAssertEqual(state.marked[.downloads], [1, 2, 4])
        _ = press(.escape, state: &state)
        XCTAssertNil(state.marked[.downloads])
        XCTAssertEqual(state.filter[.downloads], "o", "Esc clears the marks before the filter")
        _ = press(.escape, state: &state)
        XCTAssertNil(state.filter[.downloads])
    }

    func testRowKeysActOnEveryMarkedRowTheyApplyTo() {
        var state = TUIState()
        state.marked[.downloads] = [1, 2, 4]
        XCTAssertEqual(press(.character("p"), state: &state), [.performMany(.pause, ids: [1])], "only the running one can pause")
        XCTAssertNil(state.marked[.downloads], "the marks go after the action")

        state.marked[.downloads] = [2]
        XCTAssertEqual(press(.character(" "), state: &state), [.performMany(.resume, ids: [2])], "all paused: Space resumes")

        state.marked[.downloads] = [3, 4]
        XCTAssertEqual(press(.character("r"), state: &state), [.performMany(.retry, ids: [3])])

        state.marked[.downloads] = [1, 2, 4]
        XCTAssertEqual(press(.character("c"), state: &state), [])
        XCTAssertEqual(state.mode, .confirming(.cancelMarked(ids: [1, 2])), "a completed row cannot be cancelled")
        XCTAssertEqual(press(.character("y"), state: &state), [.performMany(.cancel, ids: [1, 2])])

        state.marked[.downloads] = [3, 4]
        _ = press(.character("x"), state: &state)
        XCTAssertEqual(state.mode, .confirming(.removeMarked(ids: [3, 4])))
        XCTAssertEqual(press(.character("k"), state: &state), [.removeMany(ids: [3, 4], deletingFiles: false)])
        state.marked[.downloads] = [3, 4]
        _ = press(.character("x"), state: &state)
        XCTAssertEqual(press(.character("n"), state: &state), [], "any other key removes nothing")
        XCTAssertEqual(state.message?.text, "Nothing removed.")
        XCTAssertEqual(state.marked[.downloads], [3, 4], "and keeps the marks")

        state.marked[.downloads] = [4]
        XCTAssertEqual(press(.character("p"), state: &state), [])
        XCTAssertEqual(state.message?.text, "None of the 1 marked downloads can be paused.")
    }

    func testShiftRRetriesEveryFailedAndShiftCClearsEveryCompletedRow() {
        var state = TUIState()
        XCTAssertEqual(press(.character("R"), state: &state), [.performMany(.retry, ids: [3])])
        XCTAssertEqual(press(.character("C"), state: &state), [.removeMany(ids: [4], deletingFiles: false)], "files kept")
        let empty = TUISnapshot()
        XCTAssertEqual(TUIController.handle(.character("R"), state: &state, snapshot: empty, pageSize: 2), [])
        XCTAssertEqual(state.message?.text, "No download has failed.")
    }

    func testShiftQAsksHowManyOfAPodcastsEpisodesToQueue() {
        var state = TUIState()
        state.view = .podcasts
        _ = press(.character("Q"), state: &state)
        XCTAssertEqual(state.mode, .queueingFrom(podcasts: [7], title: "Show", count: ""))
        _ = press(.character("1"), .character("x"), .character("2"), state: &state)
        XCTAssertEqual(state.mode, .queueingFrom(podcasts: [7], title: "Show", count: "12"), "digits only")
        XCTAssertEqual(press(.enter, state: &state), [.queueFromPodcasts(ids: [7], latest: 12)])
        _ = press(.character("Q"), state: &state)
        XCTAssertEqual(press(.enter, state: &state), [.queueFromPodcasts(ids: [7], latest: nil)], "Enter alone: every new one")
        _ = press(.character("Q"), state: &state)
        XCTAssertEqual(press(.escape, state: &state), [])
        XCTAssertEqual(state.mode, .normal)
        state.view = .downloads
        XCTAssertEqual(press(.character("Q"), state: &state), [])
        XCTAssertTrue(state.message?.text.hasPrefix("Q queues a podcast's episodes") == true)
    }

    func testEnterQueuesEveryMarkedEpisodeAndSpaceMarksThere() {
        var state = TUIState()
        state.view = .episodes
        _ = press(.character(" "), .character(" "), state: &state)
        XCTAssertEqual(state.marked[.episodes], [20, 21])
        XCTAssertEqual(press(.enter, state: &state), [.queueEpisodes(ids: [20, 21])])
        XCTAssertNil(state.marked[.episodes])
        XCTAssertEqual(press(.enter, state: &state), [.queueEpisode(id: 22)], "no marks: the selected one")
    }

    func testIOpensTheDetailPaneWhichScrollsAndCloses() {
        var state = TUIState()
        state.view = .episodes
        XCTAssertEqual(press(.character("j"), .character("i"), state: &state), [.loadDetail(view: .episodes, id: 21)])
        XCTAssertEqual(state.mode, .detail)
        XCTAssertEqual(state.detail, Detail(view: .episodes, id: 21, title: "Middle", isLoading: true))
        _ = press(.character("j"), .down, .pageDown, state: &state, pageSize: 5)
        XCTAssertEqual(state.detailScroll, 7)
        _ = press(.character("k"), .pageUp, .pageUp, state: &state, pageSize: 5)
        XCTAssertEqual(state.detailScroll, 0, "never above the top")
        XCTAssertEqual(state.selectedID[.episodes], 21, "scrolling the pane does not move the selection")
        _ = press(.escape, state: &state)
        XCTAssertEqual(state.mode, .normal)
        XCTAssertNil(state.detail)
        // On a download: its title from the queue.
        state.view = .downloads
        XCTAssertEqual(press(.character("i"), state: &state), [.loadDetail(view: .downloads, id: 1)])
        XCTAssertEqual(state.detail?.title, "One")
        _ = press(.character("q"), state: &state)
        XCTAssertFalse(state.quit, "q closes the pane, it does not quit")
        XCTAssertEqual(state.mode, .normal)
    }

    func testTheDetailPaneFrameWrapsScrollsAndSaysWhereItIs() {
        var state = TUIState()
        state.view = .episodes
        state.mode = .detail
        state.detail = Detail(
            view: .episodes, id: 20, title: "Newest",
            fields: [.init("Podcast", "Show"), .init("Size", ""), .init("Link", "https://example.com/a/long/address")],
            notes: ["First paragraph of the notes, long enough to wrap.", "• a point", "Last."])
        let top = TUIRenderer().render(&state, snapshot, width: 40, height: 14).text
        XCTAssertEqual(
            top,
            """
             1 Downloads (4)   2 Episodes (3)   3 Po
            ┌─ Episode ────────────────────────────┐
            │ Newest                               │
            │                                      │
            │ Podcast: Show                        │
            │ Link:    https://example.com/a/long/ │
            │          address                     │
            │                                      │
            │ First paragraph of the notes, long   │
            │ enough to wrap.                      │
            └─ 1–8 of 12 lines · ↑↓ PgUp PgDn scr…─┘
             1/3 active, 2 a host · 1 B/s · 0 queued
            """ + "\n\n" + TUIRenderer().hints(.episodes, width: 40), "an empty field is left out")
        state.detailScroll = 100
        let bottom = TUIRenderer().render(&state, snapshot, width: 40, height: 14).text
        XCTAssertEqual(state.detailScroll, 4, "clamped to the last page")
        XCTAssertEqual(state.detailLayout?.width, 36, "laid out once for this width, kept for the next frames")
        _ = TUIRenderer().render(&state, snapshot, width: 60, height: 14)
        XCTAssertEqual(state.detailLayout?.width, 56, "and again for another width")
        XCTAssertEqual(state.detailLayout?.lines.count, 10, "nothing wraps at 56 cells")
        XCTAssertTrue(bottom.contains("│ Last.") && bottom.contains("│ • a point") && bottom.contains("5–12 of 12"), bottom)
        XCTAssertFalse(bottom.contains("Podcast:"), bottom)
    }

    func testMarkedRowsShowACheckAndTheStatusCountsThem() {
        var state = TUIState()
        state.marked[.downloads] = [2, 4]
        let text = TUIRenderer().render(&state, snapshot, width: 100, height: 10).text
        XCTAssertTrue(text.contains("paused      ✓ Two"), text)
        XCTAssertTrue(text.contains("completed   ✓ Four"), text)
        XCTAssertTrue(text.contains("running") == false && text.contains("· 2 marked"), text)
        XCTAssertFalse(text.contains("✓ One"), text)
    }
}

final class TUIMessageTests: XCTestCase {
    /// A message wider than the screen wraps over up to a quarter of it, taking lines from the table;
    /// past that it ends with "…": never cut silently.
    func testALongMessageWrapsAndTheTableMakesRoom() {
        let rows = (1...20).map { DownloadRow(id: $0, title: "Episode \($0)", state: .queued, fraction: nil, received: 0, expected: nil, speed: 0, eta: nil) }
        var state = TUIState()
        state.message = .init("refreshed 3 feeds: 4 new episodes · Tech Talk: 3 new · Night Shift: 1 new; the feed moved to https://new.example/feed")
        let text = TUIRenderer().render(&state, TUISnapshot(downloads: rows), width: 50, height: 16).text
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(
            Array(lines[12...14]),
            [
                "refreshed 3 feeds: 4 new episodes · Tech Talk: 3",
                "new · Night Shift: 1 new; the feed moved to",
                "https://new.example/feed",
            ], text)
        XCTAssertTrue(lines[11].hasPrefix(" 0/3 active"), "the status line moves up:\n\(text)")
        XCTAssertTrue(lines[10].contains("Episode 9") && !text.contains("Episode 10"), "the table gives up two rows:\n\(text)")
        XCTAssertEqual(lines.count, 16)

        state.message = .init(String(repeating: "word ", count: 100))
        let cut = TUIRenderer().render(&state, TUISnapshot(downloads: rows), width: 50, height: 16).text.split(separator: "\n").map(String.init)
        XCTAssertTrue(cut[14].hasSuffix(" …"), "the fourth line says there is more:\n\(cut.joined(separator: "\n"))")
        XCTAssertTrue(cut[10].hasPrefix(" 0/3 active"))
    }
}

final class PlayedEpisodesTests: XCTestCase {
    private func library() -> EpisodeLibrary {
        EpisodeLibrary(
            podcasts: [
                PodcastRow(id: 1, title: "A", url: "", episodes: 4, lastRefresh: nil, error: nil, autoQueue: false),
                PodcastRow(id: 2, title: "B", url: "", episodes: 1, lastRefresh: nil, error: nil, autoQueue: false),
            ],
            entries: [
                .init(id: 10, podcastId: 1, title: "a", published: 4, duration: nil, length: nil, played: true),
                .init(id: 11, podcastId: 1, title: "b", published: 3, duration: nil, length: nil),
                .init(id: 12, podcastId: 1, title: "c", published: 2, duration: nil, length: nil, played: true),
                .init(id: 13, podcastId: 1, title: "d", published: 1, duration: nil, length: nil),
                .init(id: 20, podcastId: 2, title: "e", published: 1, duration: nil, length: nil),
            ])
    }

    /// NEW: neither queued nor played; DONE: downloaded. A played and downloaded episode counts once.
    func testStatesAndCountsFollowPlayedMarksAndTheQueue() {
        var snapshot = TUISnapshot(library: library(), episodeStates: [12: .completed, 13: .queued])
        XCTAssertEqual(snapshot.episodeState(10), .played)
        XCTAssertEqual(snapshot.episodeState(11), .new)
        XCTAssertEqual(snapshot.episodeState(12), .played, "downloaded and played")
        XCTAssertEqual(snapshot.episodeState(13), .queued)
        var counts = snapshot.podcastCounts()
        XCTAssertEqual(counts[1]?.new, 1, "only #11")
        XCTAssertEqual(counts[1]?.downloaded, 1)
        XCTAssertEqual(counts[2]?.new, 1)

        // Changes made since the read count at once.
        snapshot.playedChanges = [11: true, 10: false, 20: true]
        counts = snapshot.podcastCounts()
        XCTAssertEqual(snapshot.episodeState(10), .new)
        XCTAssertEqual(counts[1]?.new, 1, "#10 is new again, #11 played")
        XCTAssertEqual(counts[2]?.new, 0)
    }

    func testMTogglesTheSelectedOrEveryMarkedEpisode() {
        let snapshot = TUISnapshot(library: library())
        var state = TUIState()
        state.view = .episodes
        XCTAssertEqual(TUIController.handle(.character("m"), state: &state, snapshot: snapshot, pageSize: 2), [.setPlayed(ids: [10], played: false)])
        state.marked[.episodes] = [10, 11]
        XCTAssertEqual(
            TUIController.handle(.character("m"), state: &state, snapshot: snapshot, pageSize: 2), [.setPlayed(ids: [10, 11], played: true)],
            "not all played: mark them played")
        XCTAssertNil(state.marked[.episodes])
        state.view = .downloads
        XCTAssertEqual(TUIController.handle(.character("m"), state: &state, snapshot: snapshot, pageSize: 2), [])
    }
}
