import PodqCore
import PodqUI
import XCTest

/// Remapped keys (the config's `key-<action>`) and `o` (play), without a terminal.
final class TUIKeyBindingsTests: XCTestCase {
    private let snapshot = TUISnapshot(
        downloads: [
            DownloadRow(id: 1, title: "One", state: .downloading, fraction: 0.5, received: 5, expected: 10, speed: 1, eta: 5),
            DownloadRow(id: 4, title: "Four", state: .completed, fraction: 1, received: 10, expected: 10, speed: 0, eta: nil),
        ],
        episodes: [], podcasts: [])

    private func press(_ key: Key, _ state: inout TUIState) -> [TUIAction] {
        TUIController.handle(key, state: &state, snapshot: snapshot, pageSize: 5)
    }

    private func swapped() -> TUIState {
        var keys = KeyBindings()
        keys.bind(.cancel, to: "x")
        keys.bind(.remove, to: "c")
        keys.bind(.quit, to: "Q")
        var state = TUIState()
        state.keys = keys
        return state
    }

    func testARemappedLetterDoesItsNewActionAndTheOldLetterItsNewOne() {
        var state = swapped()
        XCTAssertEqual(press(.character("x"), &state), [.perform(.cancel, id: 1)], "x now cancels")
        XCTAssertEqual(press(.character("c"), &state), [.remove(id: 1, deletingFile: false)], "c now removes")
        XCTAssertEqual(press(.character("p"), &state), [.perform(.pause, id: 1)], "untouched letters still work")
    }

    func testAnActionsOldLetterDoesNothingOnceItMoved() {
        var state = swapped()
        XCTAssertEqual(press(.character("q"), &state), [], "q no longer quits")
        XCTAssertFalse(state.quit)
        XCTAssertEqual(press(.character("Q"), &state), [.quit])
        XCTAssertTrue(state.quit)
    }

    func testTheHintsAndTheHelpShowTheConfiguredLetters() {
        let state = swapped()
        let hints = TUIRenderer().hints(.downloads, width: 300, keys: state.keys)
        XCTAssertTrue(hints.contains("x cancel"), hints)
        XCTAssertTrue(hints.contains("c remove"), hints)
        XCTAssertTrue(hints.hasSuffix("? help  Q quit"), hints)
        let help = HelpOverlay.keys(state.keys)
        XCTAssertEqual(help.first { $0.1.hasPrefix("cancel the download") }?.0, "x")
        XCTAssertEqual(help.first { $0.1.hasPrefix("quit") }?.0, "Q")
    }

    func testPlayWorksOnACompletedDownloadOnly() {
        var state = TUIState()
        XCTAssertEqual(press(.character("o"), &state), [], "#1 is still downloading")
        XCTAssertEqual(state.message?.text, "d1 is downloading; only a completed download can be played.")
        _ = press(.down, &state)
        XCTAssertEqual(press(.character("o"), &state), [.play(id: 4)])
    }
}

final class KeyBindingDisplacementTests: XCTestCase {
    /// A config written before `C` became clear-completed's default (`key-cancel = C`, the README's
    /// example) still loads: its letter wins, and clear-completed waits for one of its own.
    func testAConfigsLetterWinsOverANewDefault() {
        var keys = KeyBindings()
        keys.bind(.cancel, to: "C")
        XCTAssertNil(keys.conflict())
        XCTAssertTrue(keys.isDisplaced(.clearCompleted))
        XCTAssertEqual(keys.key(.clearCompleted), "·")
        XCTAssertEqual(keys.action(for: "C"), .cancel, "C cancels")
        XCTAssertNil(keys.action(for: "c"), "the old letter does nothing")
        keys.bind(.clearCompleted, to: "Z")
        XCTAssertFalse(keys.isDisplaced(.clearCompleted))
        XCTAssertEqual(keys.action(for: "Z"), .clearCompleted, "and Z clears completed rows")
        keys.bind(.retry, to: "Z")
        XCTAssertNotNil(keys.conflict(), "two letters the config chose still conflict")
    }
}

/// The one map from keys to actions (``KeyBindings/action(for:)``).
final class KeyActionMapTests: XCTestCase {
    func testEveryDefaultLetterIsItsActionAndTheFixedKeysTheirs() {
        let keys = KeyBindings()
        for action in KeyBindings.Action.allCases {
            XCTAssertEqual(keys.action(for: .character(KeyBindings.defaults[action]!)), action, "\(action)")
        }
        XCTAssertEqual(keys.action(for: .up), .up)
        XCTAssertEqual(keys.action(for: .down), .down)
        XCTAssertEqual(keys.action(for: .home), .top)
        XCTAssertEqual(keys.action(for: .end), .bottom)
        XCTAssertEqual(keys.action(for: .enter), .open)
        for key: Key in [.pageUp, .pageDown, .tab, .escape, .character(" "), .character("z"), .mouse(.click, x: 1, y: 1)] {
            XCTAssertNil(keys.action(for: key), "\(key) is read as a key, not an action")
        }
    }

    /// Every binding, remapped one at a time to a free letter: the new letter is the action's, the
    /// old one nobody's (unless it is another action's default), and the arrows stay.
    func testEveryActionMovesToItsNewLetter() {
        for action in KeyBindings.Action.allCases {
            var keys = KeyBindings()
            keys.bind(action, to: "Z")
            XCTAssertEqual(keys.action(for: "Z"), action)
            XCTAssertNil(keys.action(for: KeyBindings.defaults[action]!), "\(action)'s old letter")
            XCTAssertEqual(keys.action(for: .up), .up)
        }
    }
}
