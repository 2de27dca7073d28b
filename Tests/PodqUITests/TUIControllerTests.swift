import PodqCore
import PodqUI
import XCTest

/// Every key of the README's table, without a terminal: keys in, state and actions out.
final class TUIControllerTests: XCTestCase {
    private let snapshot = TUISnapshot(
        downloads: [
            DownloadRow(id: 1, title: "One", state: .downloading, fraction: 0.5, received: 5, expected: 10, speed: 1, eta: 5),
            DownloadRow(id: 2, title: "Two", state: .paused, fraction: 0.2, received: 2, expected: 10, speed: 0, eta: nil),
            DownloadRow(id: 3, title: "Three", state: .failed(reason: "404"), fraction: nil, received: 0, expected: nil, speed: 0, eta: nil),
            DownloadRow(id: 4, title: "Four", state: .completed, fraction: 1, received: 10, expected: 10, speed: 0, eta: nil),
        ],
        episodes: [
            EpisodeRow(id: 20, podcastId: 7, podcast: "Show", title: "Newest", published: 2, duration: nil, length: nil, state: .new),
            EpisodeRow(id: 21, podcastId: 8, podcast: "Other", title: "Older", published: 1, duration: nil, length: nil, state: .new),
        ],
        podcasts: [
            PodcastRow(id: 7, title: "Show", url: "u", episodes: 1, lastRefresh: nil, error: nil, autoQueue: false),
            PodcastRow(id: 8, title: "Other", url: "v", episodes: 1, lastRefresh: nil, error: nil, autoQueue: false),
        ])

    private func press(_ keys: Key..., state: inout TUIState, pageSize: Int = 2) -> [TUIAction] {
        keys.flatMap { TUIController.handle($0, state: &state, snapshot: snapshot, pageSize: pageSize) }
    }

    private func selected(_ state: TUIState, _ view: TUIView = .downloads) -> Int64? {
        let ids = state.visibleIDs(view, in: snapshot)
        return state.selection(view, ids: ids).map { ids[$0] }
    }

    func testMovingTheSelection() {
        var state = TUIState()
        XCTAssertEqual(selected(state), 1)
        _ = press(.down, .character("j"), state: &state)
        XCTAssertEqual(selected(state), 3)
        _ = press(.up, state: &state)
        XCTAssertEqual(selected(state), 2)
        _ = press(.end, state: &state)
        XCTAssertEqual(selected(state), 4)
        _ = press(.character("k"), .home, state: &state)
        XCTAssertEqual(selected(state), 1)
        _ = press(.pageDown, state: &state)
        XCTAssertEqual(selected(state), 3)
        _ = press(.character("G"), .pageUp, state: &state)
        XCTAssertEqual(selected(state), 2)
        _ = press(.character("g"), .up, state: &state)
        XCTAssertEqual(selected(state), 1, "stops at the top")
    }

    func testTheSelectionFollowsItsRowWhenRowsMove() {
        var state = TUIState()
        _ = press(.down, state: &state)  // #2
        var moved = snapshot
        moved.downloads.swapAt(0, 1)
        let ids = state.visibleIDs(.downloads, in: moved)
        XCTAssertEqual(state.selection(.downloads, ids: ids), 0, "still on #2, now first")
    }

    func testViews() {
        var state = TUIState()
        _ = press(.tab, state: &state)
        XCTAssertEqual(state.view, .episodes)
        _ = press(.tab, .tab, state: &state)
        XCTAssertEqual(state.view, .downloads)
        _ = press(.character("3"), state: &state)
        XCTAssertEqual(state.view, .podcasts)
        _ = press(.character("2"), state: &state)
        XCTAssertEqual(state.view, .episodes)
        _ = press(.character("1"), state: &state)
        XCTAssertEqual(state.view, .downloads)
    }

    func testDownloadKeys() {
        var state = TUIState()
        XCTAssertEqual(press(.character("c"), state: &state), [.perform(.cancel, id: 1)], "c cancels the selected row only")
        XCTAssertEqual(press(.character("p"), state: &state), [.perform(.pause, id: 1)])
        _ = press(.down, state: &state)
        XCTAssertEqual(press(.character(" "), state: &state), [.perform(.resume, id: 2)], "p/Space on a paused row resumes")
        XCTAssertEqual(press(.character("K"), state: &state), [.move(id: 2, by: -1)])
        XCTAssertEqual(press(.character("J"), state: &state), [.move(id: 2, by: 1)])
        XCTAssertEqual(press(.enter, state: &state), [.startNext(id: 2)])
        XCTAssertEqual(press(.character("d"), state: &state), [.startNext(id: 2)])
        XCTAssertEqual(press(.character("x"), state: &state), [.remove(id: 2, deletingFile: false)])
        _ = press(.down, state: &state)
        XCTAssertEqual(press(.character("r"), state: &state), [.perform(.retry, id: 3)])
        XCTAssertEqual(press(.character("+"), .character("-"), state: &state), [.changeLimit(by: 1), .changeLimit(by: -1)])
        XCTAssertEqual(press(.character("<"), .character(">"), state: &state), [.changeRate(faster: false), .changeRate(faster: true)])
        XCTAssertEqual(press(.character("P"), state: &state), [.pauseAll(true)], "something runs: P pauses all")
        XCTAssertEqual(press(.character("u"), state: &state), [.refreshFeeds])
        XCTAssertEqual(press(.character("q"), state: &state), [.quit])
        XCTAssertTrue(state.quit)
    }

    func testAKeyTheStateDoesNotAllowSaysWhy() {
        var state = TUIState()
        _ = press(.end, state: &state)  // completed
        XCTAssertEqual(press(.character("c"), state: &state), [])
        XCTAssertEqual(state.message?.text, "d4 is completed; it cannot be cancelled.")
        XCTAssertEqual(press(.character("r"), state: &state), [])
        XCTAssertEqual(state.message?.text, "d4 is completed; it cannot be retried.")
    }

    func testPResumesAllWhenNothingRuns() {
        var idle = snapshot
        idle.downloads = idle.downloads.filter { $0.state != .downloading }
        var state = TUIState()
        XCTAssertEqual(TUIController.handle(.character("P"), state: &state, snapshot: idle, pageSize: 5), [.pauseAll(false)])
    }

    func testRemovingACompletedDownloadAsksFirst() {
        var state = TUIState()
        _ = press(.end, state: &state)
        XCTAssertEqual(press(.character("x"), state: &state), [])
        XCTAssertEqual(state.mode, .confirming(.removeCompleted(id: 4, title: "Four")))
        XCTAssertEqual(press(.character("n"), state: &state), [], "any other key keeps everything")
        XCTAssertEqual(state.mode, .normal)
        _ = press(.character("x"), state: &state)
        XCTAssertEqual(press(.character("y"), state: &state), [.remove(id: 4, deletingFile: true)])
        _ = press(.character("x"), state: &state)
        XCTAssertEqual(press(.character("k"), state: &state), [.remove(id: 4, deletingFile: false)])
    }

    func testEpisodesAndPodcasts() {
        var state = TUIState()
        _ = press(.character("2"), state: &state)
        XCTAssertEqual(press(.enter, state: &state), [.queueEpisode(id: 20)])
        XCTAssertEqual(press(.character("c"), state: &state), [], "download keys work on the Downloads view")
        XCTAssertNotNil(state.message)
        _ = press(.character("3"), .down, state: &state)
        XCTAssertEqual(press(.enter, state: &state), [])
        XCTAssertEqual(state.view, .episodes, "Enter on a podcast opens its episodes")
        XCTAssertEqual(state.visibleIDs(.episodes, in: snapshot), [21])
        _ = press(.escape, state: &state)
        XCTAssertEqual(state.visibleIDs(.episodes, in: snapshot), [20, 21], "Esc shows all again")
        _ = press(.character("3"), .character("x"), state: &state)
        XCTAssertEqual(press(.character("y"), state: &state), [.removePodcast(id: 8)], "the selection stayed on Other")
    }

    func testFilterAsYouType() {
        var state = TUIState()
        _ = press(.character("f"), .character("t"), .character("W"), state: &state)
        XCTAssertEqual(state.mode, .filtering)
        XCTAssertEqual(state.visibleIDs(.downloads, in: snapshot), [2], "case-insensitive, applied while typing")
        _ = press(.backspace, state: &state)
        XCTAssertEqual(state.visibleIDs(.downloads, in: snapshot), [2, 3], "Two and Three contain t")
        _ = press(.enter, state: &state)
        XCTAssertEqual(state.mode, .normal)
        XCTAssertEqual(state.filter[.downloads], "t", "Enter keeps the filter")
        XCTAssertEqual(press(.character("c"), state: &state), [.perform(.cancel, id: 2)], "keys act on the filtered rows")
        _ = press(.escape, state: &state)
        XCTAssertNil(state.filter[.downloads])
    }

    func testAddingAFeed() {
        var state = TUIState()
        _ = press(.character("a"), state: &state)
        let url = "http://x/f"
        XCTAssertEqual(url.map { press(.character($0), state: &state) }.flatMap { $0 }, [])
        XCTAssertEqual(state.mode, .addingFeed(url), "q, c and the rest are typed, not obeyed")
        XCTAssertEqual(press(.enter, state: &state), [.addFeed(url: url)])
        _ = press(.character("a"), .character("z"), .escape, state: &state)
        XCTAssertEqual(state.mode, .normal)
        XCTAssertFalse(state.quit)
    }

    func testHelpOpensAndAnyKeyClosesIt() {
        var state = TUIState()
        _ = press(.character("?"), state: &state)
        XCTAssertEqual(state.mode, .help)
        XCTAssertEqual(press(.character("q"), state: &state), [], "q closes the help, it does not quit")
        XCTAssertEqual(state.mode, .normal)
        XCTAssertFalse(state.quit)
    }
}
