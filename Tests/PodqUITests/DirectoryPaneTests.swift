import PodqCore
import PodqUI
import XCTest

/// The TUI's directory search without a terminal: `a` with words or a URL, the results' keys, the
/// answer and the subscription's events, and the pane as drawn.
final class DirectoryPaneTests: XCTestCase {
    private let snapshot = TUISnapshot(downloads: [])
    private let shows = [
        DirectoryShow(
            title: "The History of Rome", author: "Mike Duncan", feedURL: "https://f.example/rome", episodes: 189, description: "Rise and fall.",
            sources: ["itunes", "gpodder"]),
        DirectoryShow(title: "Revolutions", author: "Mike Duncan", feedURL: "https://f.example/rev", sources: ["gpodder"]),
    ]

    private func press(_ keys: Key..., state: inout TUIState) -> [TUIAction] {
        keys.flatMap { TUIController.handle($0, state: &state, snapshot: snapshot, pageSize: 5) }
    }

    private func type(_ text: String, state: inout TUIState) -> [TUIAction] {
        text.flatMap { press(.character($0), state: &state) }
    }

    func testWordsOrAnAddress() {
        for words in ["history of rome", "radiolab", "  the daily ", "99% invisible"] {
            XCTAssertTrue(DirectoryPane.isWords(words), words)
        }
        for address in [
            "https://x.example/feed", "example.org", "example.org/feed.xml", "feed.xml", "~/feeds/a.xml", "/tmp/a b.xml", "127.0.0.1:8080", "", "  ",
        ] {
            XCTAssertFalse(DirectoryPane.isWords(address), address)
        }
    }

    func testWordsAtASearchTheDirectoriesAndAURLIsAdded() {
        var state = TUIState()
        _ = press(.character("a"), state: &state)
        _ = type("history  of rome", state: &state)
        XCTAssertEqual(press(.enter, state: &state), [.searchDirectory("history of rome")])
        XCTAssertEqual(state.mode, .directory)
        XCTAssertEqual(state.directory?.loading, true)
        state = TUIState()
        _ = press(.character("a"), state: &state)
        _ = type("example.org/feed", state: &state)
        XCTAssertEqual(press(.enter, state: &state), [.addFeed(url: "example.org/feed")])
        XCTAssertNil(state.directory)
    }

    func testTheResultsKeys() {
        var state = TUIState()
        _ = press(.character("a"), state: &state)
        _ = type("rome", state: &state)
        _ = press(.enter, state: &state)
        // An answer to another search is not taken.
        _ = TUIController.apply(
            .directory(.init(words: "other", shows: shows, answered: "iTunes", note: nil, failed: false)), state: &state, snapshot: snapshot, pageSize: 5)
        XCTAssertEqual(state.directory?.loading, true)
        _ = TUIController.apply(
            .directory(.init(words: "rome", shows: shows, answered: "iTunes, gpodder.net", note: nil, failed: false)), state: &state, snapshot: snapshot,
            pageSize: 5)
        XCTAssertEqual(state.directory?.shows.count, 2)
        XCTAssertEqual(press(.down, .down, state: &state), [])
        XCTAssertEqual(state.directory?.selected, 1, "stops at the last")
        _ = press(.character("k"), state: &state)
        XCTAssertEqual(state.directory?.selected, 0)
        _ = press(.character("i"), state: &state)
        XCTAssertEqual(state.directory?.showingAbout, true)
        _ = press(.escape, state: &state)
        XCTAssertEqual(state.directory?.showingAbout, false, "Esc closes the description first")
        XCTAssertEqual(state.mode, .directory)
        XCTAssertEqual(press(.enter, state: &state), [.subscribeFound(url: "https://f.example/rome", title: "The History of Rome")])
        XCTAssertEqual(state.mode, .normal)
        XCTAssertNil(state.directory)
        _ = TUIController.apply(.showPodcast(id: 9, title: "The History of Rome"), state: &state, snapshot: snapshot, pageSize: 5)
        XCTAssertEqual(state.view, .episodes)
        XCTAssertEqual(state.episodesOf, .init(id: 9, title: "The History of Rome"))
    }

    func testEscapeGoesBackAndASearchAgainKeepsTheWords() {
        var state = TUIState()
        state.view = .podcasts
        _ = press(.character("a"), state: &state)
        _ = type("rome", state: &state)
        _ = press(.enter, state: &state)
        XCTAssertEqual(press(.enter, state: &state), [], "nothing to subscribe while it loads")
        _ = press(.character("a"), state: &state)
        XCTAssertEqual(state.mode, .addingFeed("rome"))
        _ = press(.escape, state: &state)
        _ = press(.character("a"), state: &state)
        _ = type("rome", state: &state)
        _ = press(.enter, state: &state)
        _ = press(.escape, state: &state)
        XCTAssertEqual(state.mode, .normal)
        XCTAssertEqual(state.view, .podcasts)
        XCTAssertNil(state.directory)
    }

    func testThePaneAsDrawn() {
        var state = TUIState()
        state.mode = .directory
        state.directory = DirectoryPane(words: "rome")
        var grid = TUIRenderer().render(&state, snapshot, width: 100, height: 12)
        XCTAssertTrue(grid.text.contains("Searching the podcast directories for “rome”…"), grid.text)
        state.directory?.receive(
            .init(words: "rome", shows: shows, answered: "iTunes, gpodder.net", note: "Podcast Index did not answer within 8 s", failed: false))
        grid = TUIRenderer().render(&state, snapshot, width: 100, height: 12)
        XCTAssertTrue(grid.text.contains("The History of Rome — by Mike Duncan · 189 episodes · iTunes, gpodder.net"), grid.text)
        XCTAssertTrue(grid.text.contains("Revolutions — by Mike Duncan · gpodder.net"), grid.text)
        XCTAssertTrue(grid.text.contains("Podcast Index did not answer within 8 s"), grid.text)
        XCTAssertTrue(grid.text.contains("2 shows from iTunes, gpodder.net"), grid.text)
        XCTAssertTrue(grid.text.contains("↑↓ select  Enter subscribe  i about  a search again  Esc back"), grid.text)
        XCTAssertFalse(grid.text.contains("p pause"), "the hint bar is the list's, not the view's beneath")
        state.directory?.showingAbout = true
        grid = TUIRenderer().render(&state, snapshot, width: 100, height: 12)
        XCTAssertTrue(grid.text.contains("Rise and fall."), grid.text)
        XCTAssertTrue(grid.text.contains("Feed: https://f.example/rome"), grid.text)
    }
}
