import PodqCore
import PodqUI
import XCTest

/// The events other threads post to the TUI's loop, applied to the state (``TUIController/apply(_:state:snapshot:pageSize:)``).
final class TUIEventTests: XCTestCase {
    private let snapshot = TUISnapshot(
        downloads: [DownloadRow(id: 1, title: "One", state: .downloading, fraction: 0.5, received: 5, expected: 10, speed: 1, eta: 5)],
        episodes: [], podcasts: [])

    private func apply(_ event: TUIEvent, _ state: inout TUIState) -> [TUIAction] {
        TUIController.apply(event, state: &state, snapshot: snapshot, pageSize: 5)
    }

    func testAKeyIsHandledAsTheControllerHandlesIt() {
        var state = TUIState()
        XCTAssertEqual(apply(.key(.character("c")), &state), [.perform(.cancel, id: 1)])
        XCTAssertEqual(apply(.key(.character("q")), &state), [.quit])
        XCTAssertTrue(state.quit)
        XCTAssertFalse(state.quitBySignal)
    }

    func testASignalsQuitIsRemembered() {
        var state = TUIState()
        XCTAssertEqual(apply(.quit(bySignal: true), &state), [])
        XCTAssertTrue(state.quit && state.quitBySignal)
        _ = apply(.quit(bySignal: false), &state)
        XCTAssertTrue(state.quitBySignal, "a later quit does not undo the signal's")
    }

    /// The detail pane takes contents only for the row it is open on, and only while open.
    func testADetailForAnotherRowOrAClosedPaneIsDropped() {
        var state = TUIState()
        _ = apply(.key(.character("i")), &state)
        XCTAssertEqual(state.detail?.isLoading, true)
        _ = apply(.detail(Detail(view: .downloads, id: 2, title: "Two")), &state)
        XCTAssertEqual(state.detail?.isLoading, true, "another row's answer")
        _ = apply(.detail(Detail(view: .downloads, id: 1, title: "One, read")), &state)
        XCTAssertEqual(state.detail?.title, "One, read")
        _ = apply(.key(.escape), &state)
        _ = apply(.detail(Detail(view: .downloads, id: 1, title: "late")), &state)
        XCTAssertNil(state.detail, "a closed pane stays closed")
    }

    /// The notice stays on the message line until it is over; a message shows over it.
    func testTheNoticeShowsUntilItIsOver() {
        var state = TUIState()
        _ = apply(.notice("The disk is full"), &state)
        let frame = { (state: inout TUIState) in TUIRenderer(tick: 0).render(&state, self.snapshot, width: 100, height: 12).text }
        XCTAssertTrue(frame(&state).contains("The disk is full"))
        _ = apply(.message(.init("paused everything")), &state)
        XCTAssertTrue(frame(&state).contains("paused everything"))
        _ = apply(.key(.down), &state)  // a key clears the message; the notice is back
        XCTAssertTrue(frame(&state).contains("The disk is full"))
        _ = apply(.notice(nil), &state)
        XCTAssertFalse(frame(&state).contains("The disk is full"))
    }

    func testALibraryThatCannotBeReadSaysWhy() {
        var state = TUIState()
        _ = apply(.libraryFailed("database is locked"), &state)
        XCTAssertEqual(state.message, .init("cannot read the episodes: database is locked", isError: true))
        XCTAssertEqual(apply(.libraryChanged, &state), [])
    }
}
