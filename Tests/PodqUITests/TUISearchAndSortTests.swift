import PodqCore
import PodqUI
import XCTest

/// Search (`/`, `n`, `N`) and sort (`s`, `S`): keys in, the selection and the rows' order out.
final class TUISearchAndSortTests: XCTestCase {
    private let snapshot = TUISnapshot(
        downloads: [
            DownloadRow(id: 1, title: "Beta", state: .completed, fraction: 1, received: 10, expected: 10, speed: 0, eta: nil),
            DownloadRow(id: 2, title: "alpha", state: .downloading, fraction: 0.5, received: 5, expected: 10, speed: 1, eta: 5),
            DownloadRow(id: 3, title: "Gamma", state: .failed(reason: "404"), fraction: nil, received: 0, expected: nil, speed: 0, eta: nil),
            DownloadRow(id: 4, title: "delta alpha", state: .queued, fraction: 0.1, received: 1, expected: 10, speed: 0, eta: nil),
        ],
        episodes: [
            EpisodeRow(id: 10, podcastId: 2, podcast: "Zed Show", title: "banana", published: 5, duration: 60, length: 100, state: .new),
            EpisodeRow(id: 11, podcastId: 1, podcast: "Aardvark", title: "Apple pie", published: 4, duration: nil, length: 300, state: .new),
            EpisodeRow(id: 12, podcastId: 2, podcast: "Zed Show", title: "cherry", published: 3, duration: 600, length: nil, state: .new),
            EpisodeRow(id: 13, podcastId: 1, podcast: "Aardvark", title: "apple crumble", published: 2, duration: 30, length: 200, state: .new),
        ],
        podcasts: [
            PodcastRow(id: 1, title: "Aardvark", url: "u", episodes: 2, lastRefresh: 1, error: nil, autoQueue: false),
            PodcastRow(id: 2, title: "Zed Show", url: "v", episodes: 2, lastRefresh: 9, error: nil, autoQueue: false),
        ])

    private func press(_ keys: Key..., state: inout TUIState) -> [TUIAction] {
        keys.flatMap { TUIController.handle($0, state: &state, snapshot: snapshot, pageSize: 2) }
    }

    private func type(_ text: String, state: inout TUIState) {
        for ch in text { _ = press(.character(ch), state: &state) }
    }

    private func selected(_ state: TUIState) -> Int64? {
        let ids = state.visibleIDs(state.view, in: snapshot)
        return state.selection(state.view, ids: ids).map { ids[$0] }
    }

    func testSlashJumpsAsTypedAndNAndShiftNGoRound() {
        var state = TUIState()
        _ = press(.character("/"), state: &state)
        XCTAssertEqual(state.mode, .searching(origin: 1))
        type("al", state: &state)
        XCTAssertEqual(selected(state), 2, "the first match as it is typed")
        type("pha", state: &state)
        _ = press(.enter, state: &state)
        XCTAssertEqual(state.mode, .normal)
        XCTAssertEqual(state.search[.downloads], "alpha")
        XCTAssertEqual(state.visibleIDs(.downloads, in: snapshot), [1, 2, 3, 4], "a search hides nothing")
        _ = press(.character("n"), state: &state)
        XCTAssertEqual(selected(state), 4)
        XCTAssertNil(state.message)
        _ = press(.character("n"), state: &state)
        XCTAssertEqual(selected(state), 2)
        XCTAssertEqual(state.message?.text, "The search went round to the top.")
        _ = press(.character("N"), state: &state)
        XCTAssertEqual(selected(state), 4)
        XCTAssertEqual(state.message?.text, "The search went round to the bottom.")
    }

    func testEscGoesBackAndAMissSaysSo() {
        var state = TUIState()
        _ = press(.character("j"), state: &state)
        _ = press(.character("/"), state: &state)
        type("gam", state: &state)
        XCTAssertEqual(selected(state), 3)
        _ = press(.escape, state: &state)
        XCTAssertEqual(selected(state), 2, "Esc goes back to where the search started")
        XCTAssertNil(state.search[.downloads])
        _ = press(.character("n"), state: &state)
        XCTAssertEqual(state.message?.text, "No search yet: / starts one.")
        _ = press(.character("/"), state: &state)
        type("zzz", state: &state)
        _ = press(.enter, .character("n"), state: &state)
        XCTAssertEqual(state.message?.text, "Nothing matches “zzz”.")
        XCTAssertEqual(selected(state), 2)
    }

    func testEpisodesSearchMatchesThePodcastToo() {
        var state = TUIState()
        state.view = .episodes
        _ = press(.character("/"), state: &state)
        type("AARD", state: &state)
        XCTAssertEqual(selected(state), 11)
        _ = press(.enter, .character("n"), state: &state)
        XCTAssertEqual(selected(state), 13)
    }

    /// The Episodes view's search asks the store for the show notes as it is typed; their matches
    /// arrive later, take the selection while the search is typed, and count when it is done.
    func testEpisodesSearchAsksForTheShowNotesAndTheirMatchesJoinTheTitles() {
        var state = TUIState()
        state.view = .episodes
        _ = press(.character("/"), state: &state)
        XCTAssertEqual(press(.character("c"), state: &state), [.searchNotes("c")])
        XCTAssertEqual(press(.character("h"), state: &state), [.searchNotes("ch")])
        XCTAssertEqual(selected(state), 12, "cherry: the title matches at once")
        // An older text's answer is not used.
        TUIController.receive(NotesMatches(needle: "c", ids: [10, 11, 12, 13]), state: &state, snapshot: snapshot)
        XCTAssertNil(state.notesMatches)
        // Episode 11's notes say "chocolate": it comes before cherry, so the selection goes there.
        TUIController.receive(NotesMatches(needle: "ch", ids: [11]), state: &state, snapshot: snapshot)
        XCTAssertEqual(selected(state), 11)
        _ = press(.enter, state: &state)
        XCTAssertEqual(state.message?.text, "“ch”: 2 episodes match (1 only in the show notes; n and N go through them).")
        _ = press(.character("n"), state: &state)
        XCTAssertEqual(selected(state), 12)
        _ = press(.character("n"), state: &state)
        XCTAssertEqual(selected(state), 11, "round again, through the notes' match")
        // A new search forgets the old matches; Enter before the store answers says so, and the answer then counts.
        _ = press(.character("/"), state: &state)
        XCTAssertNil(state.notesMatches)
        type("zzz", state: &state)
        _ = press(.enter, state: &state)
        XCTAssertEqual(state.message?.text, "Nothing matches “zzz” in the titles (the show notes are being searched).")
        TUIController.receive(NotesMatches(needle: "zzz", ids: [13]), state: &state, snapshot: snapshot)
        XCTAssertEqual(state.message?.text, "“zzz”: 1 episode matches (1 only in the show notes; n and N go through them).")
        _ = press(.character("n"), state: &state)
        XCTAssertEqual(selected(state), 13)
        // The Downloads view's search stays on titles: no question to the store.
        state.view = .downloads
        _ = press(.character("/"), state: &state)
        XCTAssertEqual(press(.character("a"), state: &state), [])
    }

    func testSCyclesTheOrdersAndShiftSTurnsThemRound() {
        var state = TUIState()
        state.view = .episodes
        XCTAssertEqual(state.visibleIDs(.episodes, in: snapshot), [10, 11, 12, 13], "newest first")
        _ = press(.character("s"), state: &state)
        XCTAssertEqual(state.order(.episodes), .init(.title))
        XCTAssertEqual(state.visibleIDs(.episodes, in: snapshot), [13, 11, 10, 12], "A to Z, case-insensitive: apple c, Apple p")
        _ = press(.character("S"), state: &state)
        XCTAssertEqual(state.visibleIDs(.episodes, in: snapshot), [12, 10, 11, 13])
        _ = press(.character("s"), state: &state)
        XCTAssertEqual(state.visibleIDs(.episodes, in: snapshot), [11, 13, 10, 12], "by podcast, each newest first")
        _ = press(.character("s"), state: &state)
        XCTAssertEqual(state.visibleIDs(.episodes, in: snapshot), [12, 10, 13, 11], "longest first, unknown last")
        _ = press(.character("s"), state: &state)
        XCTAssertEqual(state.visibleIDs(.episodes, in: snapshot), [11, 13, 10, 12], "largest first, unknown last")
        _ = press(.character("s"), state: &state)
        XCTAssertEqual(state.order(.episodes), .init(.date), "and round again")

        state.view = .downloads
        _ = press(.character("s"), state: &state)
        XCTAssertEqual(state.visibleIDs(.downloads, in: snapshot), [2, 3, 4, 1], "running, failed, queued, completed")
        _ = press(.character("s"), state: &state)
        XCTAssertEqual(state.visibleIDs(.downloads, in: snapshot), [1, 2, 4, 3], "most done first")
        _ = press(.character("s"), state: &state)
        XCTAssertEqual(state.visibleIDs(.downloads, in: snapshot), [2, 1, 4, 3], "by title")
        state.view = .podcasts
        _ = press(.character("s"), state: &state)
        XCTAssertEqual(state.visibleIDs(.podcasts, in: snapshot), [2, 1], "last refreshed first")
    }

    /// The cache's answers with an order are the plain ones, letter by letter.
    func testTheCacheKeepsTheOrder() {
        var state = TUIState()
        state.view = .episodes
        let cached = TUISnapshot(library: snapshot.library, rowLists: RowListCache())
        let plain = TUISnapshot(library: snapshot.library)
        for order in TUIState.SortKey.keys(for: .episodes) {
            for reversed in [false, true] {
                state.sort[.episodes] = .init(order, reversed: reversed)
                for needle in ["", "a", "ap", "app", "a", ""] {
                    state.filter[.episodes] = needle.isEmpty ? nil : needle
                    XCTAssertEqual(state.visibleIDs(.episodes, in: cached), state.visibleIDs(.episodes, in: plain), "\(order) \(reversed) \(needle)")
                }
            }
        }
    }

    func testShiftFShowsOneStateAtATimeAndEscShowsAll() {
        var state = TUIState()
        _ = press(.character("F"), state: &state)
        XCTAssertEqual(state.stateFilter[.downloads], .running)
        XCTAssertEqual(state.visibleIDs(.downloads, in: snapshot), [2])
        _ = press(.character("F"), state: &state)
        XCTAssertEqual(state.visibleIDs(.downloads, in: snapshot), [4], "queued")
        _ = press(.character("F"), .character("F"), state: &state)
        XCTAssertEqual(state.visibleIDs(.downloads, in: snapshot), [3], "failed")
        _ = press(.character("F"), .character("F"), state: &state)
        XCTAssertNil(state.stateFilter[.downloads], "after the last: every state")
        _ = press(.character("F"), .escape, state: &state)
        XCTAssertNil(state.stateFilter[.downloads])

        // Episodes: from the queue's states and the played marks, with and without the cache.
        let library = EpisodeLibrary(
            podcasts: [],
            entries: (1...6).map {
                .init(id: Int64($0), podcastId: 1, title: "e\($0)", published: Double(10 - $0), duration: nil, length: nil, played: $0 == 6)
            }, podcastTitles: [1: "P"])
        let states: [Int64: EpisodeState] = [1: .queued, 2: .downloading, 3: .completed, 4: .failed]
        let plain = TUISnapshot(library: library, episodeStates: states)
        var cached = TUISnapshot(library: library, episodeStates: states, rowLists: RowListCache())
        var episodes = TUIState()
        episodes.view = .episodes
        let expected: [TUIState.StateFilter: [Int64]] = [.new: [5], .inQueue: [1, 2], .downloaded: [3], .failed: [4], .played: [6]]
        for filter in TUIState.StateFilter.filters(for: .episodes) {
            episodes.stateFilter[.episodes] = filter
            XCTAssertEqual(episodes.visibleIDs(.episodes, in: plain), expected[filter], filter.rawValue)
            XCTAssertEqual(episodes.visibleIDs(.episodes, in: cached), expected[filter], filter.rawValue)
        }
        // A state that changes (the version moves) is seen through the cache.
        episodes.stateFilter[.episodes] = .new
        cached.playedChanges = [5: true]
        cached.statesVersion = 1
        XCTAssertEqual(episodes.visibleIDs(.episodes, in: cached), [])
    }
}

final class TUIMouseTests: XCTestCase {
    private let snapshot = TUISnapshot(
        downloads: (1...30).map {
            DownloadRow(id: $0, title: "Row \($0)", state: .queued, fraction: nil, received: 0, expected: nil, speed: 0, eta: nil)
        })

    func testAClickSelectsTheRowOrTheViewAndTheWheelScrolls() {
        var state = TUIState()
        func press(_ key: Key) { _ = TUIController.handle(key, state: &state, snapshot: snapshot, pageSize: 10) }
        press(.mouse(.click, x: 20, y: TUIRenderer.firstRowLine + 4))
        XCTAssertEqual(state.selectedID[.downloads], 5)
        press(.mouse(.wheelDown, x: 0, y: 5))
        XCTAssertEqual(state.selectedID[.downloads], 8)
        press(.mouse(.wheelUp, x: 0, y: 5))
        press(.mouse(.wheelUp, x: 0, y: 5))
        XCTAssertEqual(state.selectedID[.downloads], 2)
        state.scroll[.downloads] = 10
        press(.mouse(.click, x: 3, y: TUIRenderer.firstRowLine))
        XCTAssertEqual(state.selectedID[.downloads], 11, "the row on screen, below the scroll")
        press(.mouse(.click, x: 3, y: TUIRenderer.firstRowLine + 10))
        XCTAssertEqual(state.selectedID[.downloads], 11, "below the table: nothing")
        let tabs = TUIRenderer.tabs(state, snapshot)
        press(.mouse(.click, x: tabs[2].cells.lowerBound + 1, y: 0))
        XCTAssertEqual(state.view, .podcasts, "a click on a tab opens its view")
        press(.mouse(.click, x: tabs[0].cells.upperBound, y: 0))
        XCTAssertEqual(state.view, .podcasts, "between the tabs: nothing")
    }
}
