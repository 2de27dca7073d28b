import PodqCore
import PodqUI
import XCTest

@testable import PodqUI

/// The Transcript pane (issue 46): `t` and `T` open it, the keys move in it, `/` finds, Enter plays
/// from a line's time, `t` on a hit opens its episode's transcript there; frames as text.
final class TranscriptPaneTests: XCTestCase {
    private let snapshot = TUISnapshot(
        downloads: [DownloadRow(id: 4, title: "Four", state: .completed, fraction: 1, received: 10, expected: 10, speed: 0, eta: nil)],
        episodes: [
            EpisodeRow(id: 20, podcastId: 7, podcast: "Show", title: "Newest", published: 2, duration: nil, length: nil, state: .new),
            EpisodeRow(id: 21, podcastId: 7, podcast: "Show", title: "Middle", published: 1.5, duration: nil, length: nil, state: .new),
        ],
        podcasts: [PodcastRow(id: 7, title: "Show", url: "u", episodes: 2, lastRefresh: nil, error: nil, autoQueue: false)])

    private func press(_ keys: Key..., state: inout TUIState, pageSize: Int = 3) -> [TUIAction] {
        keys.flatMap { TUIController.handle($0, state: &state, snapshot: snapshot, pageSize: pageSize) }
    }

    private func type(_ text: String, state: inout TUIState) -> [TUIAction] {
        text.flatMap { TUIController.handle(.character($0), state: &state, snapshot: snapshot, pageSize: 3) }
    }

    private func cues(_ episode: Int64, _ lines: [(Double?, String)]) -> [TranscriptPane.Line] {
        lines.map { TranscriptPane.Line(episodeId: episode, start: $0.0, text: $0.1) }
    }

    private let talk: [(Double?, String)] = [
        (0, "Welcome to the show."), (12.5, "Today: gardens."), (61.9, "Climate change and gardens."), (3723.5, "Climate change, again."),
        (3800, "Goodbye."),
    ]

    func testTOpensTheSelectedEpisodesTranscriptAndEnterPlaysFromTheLinesSecond() {
        var state = TUIState()
        state.view = .episodes
        XCTAssertEqual(press(.character("j"), .character("t"), state: &state), [.loadTranscript(view: .episodes, id: 21)])
        XCTAssertEqual(state.mode, .transcript)
        XCTAssertEqual(state.transcript?.kind, .episode(view: .episodes, id: 21, title: "Middle"))
        XCTAssertTrue(state.transcript?.loading ?? false)
        XCTAssertEqual(press(.enter, state: &state), [], "nothing to play before the lines come")

        // An answer for another row is not this pane's.
        _ = TUIController.apply(
            .transcript(.init(kind: .episode(view: .episodes, id: 20, title: ""), lines: cues(20, talk))), state: &state, snapshot: self.snapshot, pageSize: 3)
        XCTAssertTrue(state.transcript?.loading ?? false)
        _ = TUIController.apply(
            .transcript(.init(kind: .episode(view: .episodes, id: 21, title: ""), lines: cues(21, talk), note: "5 lines from x")), state: &state,
            snapshot: self.snapshot, pageSize: 3)
        XCTAssertEqual(state.transcript?.lines.count, 5)
        XCTAssertEqual(state.transcript?.kind, .episode(view: .episodes, id: 21, title: "Middle"), "the pane keeps its title")

        XCTAssertEqual(press(.character("j"), .character("j"), .enter, state: &state), [.playEpisode(id: 21, at: 61)], "the second, rounded down")
        XCTAssertEqual(press(.character("G"), .character("o"), state: &state), [.playEpisode(id: 21, at: 3800)], "o plays too")
        XCTAssertEqual(press(.pageUp, .pageUp, state: &state), [])
        XCTAssertEqual(state.transcript?.selected, 0)
        XCTAssertEqual(press(.escape, state: &state), [])
        XCTAssertEqual(state.mode, .normal)
        XCTAssertNil(state.transcript)

        // In the Podcasts view there is no episode: the line says where t works.
        state.view = .podcasts
        XCTAssertEqual(press(.character("t"), state: &state), [])
        XCTAssertEqual(state.message?.text, "t shows an episode's transcript: select one in the Episodes view (2).")
        // In the Downloads view: the download's episode, found by the session.
        state.view = .downloads
        XCTAssertEqual(press(.character("t"), state: &state), [.loadTranscript(view: .downloads, id: 4)])
        XCTAssertEqual(state.transcript?.kind, .episode(view: .downloads, id: 4, title: "Four"))
    }

    func testSlashFindsInTheLinesAsTypedAndNGoesRoundEscGoesBack() {
        var state = TUIState()
        state.view = .episodes
        _ = press(.character("t"), state: &state)
        _ = TUIController.apply(
            .transcript(.init(kind: .episode(view: .episodes, id: 20, title: ""), lines: cues(20, talk))), state: &state, snapshot: self.snapshot, pageSize: 3)
        _ = press(.character("j"), .character("/"), state: &state)
        XCTAssertTrue(state.transcript?.typingFind ?? false)
        _ = type("CLIMATE", state: &state)
        XCTAssertEqual(state.transcript?.selected, 2, "case ignored, from where / was pressed")
        _ = press(.enter, state: &state)
        XCTAssertFalse(state.transcript?.typingFind ?? true)
        _ = press(.character("n"), state: &state)
        XCTAssertEqual(state.transcript?.selected, 3)
        _ = press(.character("n"), state: &state)
        XCTAssertEqual(state.transcript?.selected, 2)
        XCTAssertEqual(state.message?.text, "The search went round to the top.")
        _ = press(.character("N"), state: &state)
        XCTAssertEqual(state.transcript?.selected, 3, "N goes round backwards")
        // Accents ignored; Esc while typing goes back to where / was pressed.
        _ = press(.character("g"), .character("/"), state: &state)
        _ = type("GÄRDENS", state: &state)
        XCTAssertEqual(state.transcript?.selected, 1)
        _ = press(.escape, state: &state)
        XCTAssertEqual(state.transcript?.selected, 0)
        XCTAssertNil(state.transcript?.find)
        XCTAssertEqual(state.mode, .transcript, "Esc while typing leaves the pane open")
        _ = press(.character("/"), state: &state)
        _ = type("tomatoes", state: &state)
        _ = press(.enter, state: &state)
        XCTAssertEqual(state.message?.text, "No line says “tomatoes”.")
    }

    /// `T`, words, Enter: a search of every transcript; the selection passes the headings; `t` on a
    /// hit opens that episode's transcript at the hit, Esc comes back to the hits, then to the table.
    func testShiftTSearchesEveryTranscriptAndTOnAHitOpensItsEpisodeThere() {
        var state = TUIState()
        XCTAssertEqual(press(.character("T"), state: &state), [])
        XCTAssertEqual(state.mode, .askingTranscriptWords(""))
        XCTAssertEqual(press(.enter, state: &state), [], "no words: nothing searched")
        XCTAssertEqual(state.mode, .normal)
        _ = press(.character("T"), state: &state)
        XCTAssertEqual(type(" climate  change ", state: &state), [])
        XCTAssertEqual(press(.enter, state: &state), [.searchTranscripts("climate change")])
        XCTAssertEqual(state.transcript?.kind, .search(words: "climate change"))
        _ = TUIController.apply(.transcript(.init(kind: .search(words: "other"), lines: [])), state: &state, snapshot: self.snapshot, pageSize: 3)
        XCTAssertTrue(state.transcript?.loading ?? false, "another search's answer is not taken")
        let hits: [TranscriptPane.Line] = [
            .init(episodeId: 21, start: nil, text: "Show — Middle (e21)", isHeading: true),
            .init(episodeId: 21, start: 61.9, text: "Climate change and gardens.", marks: [0..<14]),
            .init(episodeId: 21, start: 3723.5, text: "Climate change, again.", marks: [0..<14]),
            .init(episodeId: 20, start: nil, text: "Show — Newest (e20)", isHeading: true),
            .init(episodeId: 20, start: 5, text: "On climate change.", marks: [3..<17]),
        ]
        _ = TUIController.apply(.transcript(.init(kind: .search(words: "climate change"), lines: hits)), state: &state, snapshot: self.snapshot, pageSize: 3)
        XCTAssertEqual(state.transcript?.selected, 1, "the first hit, not its heading")
        XCTAssertEqual(state.transcript?.episodeCount, 2)
        _ = press(.character("j"), .character("j"), state: &state)
        XCTAssertEqual(state.transcript?.selected, 4, "j passes the heading")
        _ = press(.character("k"), state: &state)
        XCTAssertEqual(state.transcript?.selected, 2, "k too")
        _ = press(.character("g"), state: &state)
        XCTAssertEqual(state.transcript?.selected, 1, "g: the first line that is not a heading")
        XCTAssertEqual(press(.character("j"), .enter, state: &state), [.playEpisode(id: 21, at: 3723)])

        XCTAssertEqual(press(.character("t"), state: &state), [.loadTranscript(view: .episodes, id: 21)])
        XCTAssertEqual(state.transcript?.kind, .episode(view: .episodes, id: 21, title: "Show — Middle (e21)"))
        _ = TUIController.apply(
            .transcript(.init(kind: .episode(view: .episodes, id: 21, title: ""), lines: cues(21, talk))), state: &state, snapshot: self.snapshot, pageSize: 3)
        XCTAssertEqual(state.transcript?.selected, 3, "the hit's cue is selected")
        XCTAssertEqual(press(.character("t"), state: &state), [], "t in a transcript opens nothing more")
        _ = press(.escape, state: &state)
        XCTAssertEqual(state.transcript?.kind, .search(words: "climate change"), "Esc: back to the hits")
        XCTAssertEqual(state.transcript?.selected, 2, "where they were left")
        _ = press(.character("T"), state: &state)
        _ = press(.escape, state: &state)
        XCTAssertEqual(state.mode, .transcript, "Esc at T's words goes back to the pane")
        _ = press(.escape, state: &state)
        XCTAssertEqual(state.mode, .normal)
        XCTAssertNil(state.transcript)
    }

    /// The class: whatever the lines (headings anywhere, any number) and whatever the moves, the
    /// selection is a line, and a heading only when every line is one.
    func testTheSelectionNeverRestsOnAHeadingWhateverTheLinesAndMoves() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let count = Int.random(in: 0...12, using: &random)
            var pane = TranscriptPane(kind: .search(words: "w"))
            let lines = (0..<count).map { i in
                TranscriptPane.Line(episodeId: 1, start: Double(i), text: "l\(i)", isHeading: Bool.random(using: &random))
            }
            pane.receive(.init(kind: .search(words: "w"), lines: lines))
            for _ in 0..<20 {
                switch Int.random(in: 0..<4, using: &random) {
                case 0: pane.move(by: Int.random(in: -15...15, using: &random))
                case 1: pane.select(Int.random(in: -3...15, using: &random), forward: Bool.random(using: &random))
                case 2: pane.selected = pane.line(at: Double.random(in: -5...15, using: &random)) ?? pane.selected
                default: pane.move(by: 1)
                }
                if lines.isEmpty {
                    XCTAssertEqual(pane.selected, 0)
                    XCTAssertNil(pane.selectedLine)
                    continue
                }
                XCTAssertTrue(lines.indices.contains(pane.selected), "\(pane.selected) of \(lines.count)")
                if lines.contains(where: { !$0.isHeading }) {
                    XCTAssertFalse(lines[pane.selected].isHeading, "\(lines.map(\.isHeading)) at \(pane.selected)")
                }
            }
        }
    }

    func testTheLinePlayingAtATimeIsTheLastThatStartedByThen() {
        var pane = TranscriptPane(kind: .episode(view: .episodes, id: 1, title: ""), at: 3723.5)
        pane.receive(.init(kind: .episode(view: .episodes, id: 1, title: ""), lines: cues(1, talk)))
        XCTAssertEqual(pane.selected, 3)
        XCTAssertEqual(pane.line(at: 0), 0)
        XCTAssertEqual(pane.line(at: 12.4), 0)
        XCTAssertEqual(pane.line(at: 70), 2)
        XCTAssertEqual(pane.line(at: 99_999), 4)
        XCTAssertEqual(pane.line(at: -1), 0, "before the first: the first")
        var untimed = TranscriptPane(kind: .episode(view: .episodes, id: 1, title: ""), at: 30)
        untimed.receive(.init(kind: .episode(view: .episodes, id: 1, title: ""), lines: cues(1, [(nil, "a"), (nil, "b")])))
        XCTAssertEqual(untimed.selected, 0)
    }

    /// A whole frame: the box over the table, the title, the hits under their headings with their
    /// times, the words found accented, the selected line whole and wrapped, the note, the keys.
    func testTheSearchFrame() {
        var state = TUIState()
        state.mode = .transcript
        var pane = TranscriptPane(kind: .search(words: "climate change"))
        let long = "So, after all of that, what we really came to say about the weather is that climate change is here and it is real."
        pane.receive(
            .init(
                kind: .search(words: "climate change"),
                lines: [
                    .init(episodeId: 21, start: nil, text: "Show — Middle (e21, 2026-11-21)", isHeading: true),
                    .init(episodeId: 21, start: 61.9, text: "Climate change and gardens.", marks: [0..<14]),
                    .init(episodeId: 21, start: 3723.5, text: long, marks: [77..<91]),
                    .init(episodeId: 20, start: nil, text: "Show — Newest (e20)", isHeading: true),
                    .init(episodeId: 20, start: 5, text: "On climate change.", marks: [3..<17]),
                ], note: "3 hits in 2 episodes"))
        pane.move(by: 1)
        state.transcript = pane
        let grid = TUIRenderer().render(&state, snapshot, width: 60, height: 14)
        let expected = """
             1 Downloads (1)   2 Episodes (2)   3 Podcasts (1)
            ┌─ Where every transcript says “climate change” ───────────┐
            │ Show — Middle (e21, 2026-11-21)                          │
            │  0:01:01  Climate change and gardens.                    │
            │  1:02:03  So, after all of that, what we really came to  │
            │           say about the weather is that climate change   │
            │           is here and it is real.                        │
            │ Show — Newest (e20)                                      │
            │  0:00:05  On climate change.                             │
            │ 3 hits in 2 episodes                                     │
            └─ Enter plays from the hit · t its transcript · Esc back ─┘
            """
        let top = grid.text.split(separator: "\n", omittingEmptySubsequences: false).prefix(11).joined(separator: "\n")
        XCTAssertEqual(top, expected, "\n" + grid.text)
        XCTAssertTrue(grid.text.hasSuffix("↑↓ select  Enter play from there  / find  n/N next/previous…"), "the pane's keys:\n" + grid.text)
        // The words found are accented; the other words of the line are not.
        func style(_ x: Int, _ y: Int) -> CellStyle { grid[x, y].style }
        XCTAssertEqual(style(12, 3), .accent)
        XCTAssertEqual(style(25, 3), .accent, "the last letter of “change”")
        XCTAssertEqual(style(27, 3), .normal)
        XCTAssertEqual(style(12, 4), .selected)
        XCTAssertEqual(style(15, 8), .accent)
        XCTAssertEqual(style(12, 8), .normal)
    }

    /// A hit far into a long line is shown: the line starts a little before it, with "…".
    func testAHitFarIntoALineIsShownWithTheTextBeforeItCut() {
        let text = String(repeating: "word ", count: 40) + "climate change" + " and more"
        let line = TranscriptPane.Line(episodeId: 1, start: 1, text: text, marks: [200..<214])
        let (cut, marks) = TranscriptRenderer.excerpt(line, width: 40)
        XCTAssertTrue(cut.hasPrefix("…word "), cut)
        let scalars = Array(cut.unicodeScalars)
        XCTAssertEqual(marks.count, 1)
        XCTAssertEqual(String(String.UnicodeScalarView(scalars[marks[0]])), "climate change", cut)

        // The class: any text, any mark in it, any width: what is marked in the cut is the marked text
        // (or its start, where the cut ends in it).
        var random = SystemRandomNumberGenerator()
        let alphabet = Array("ab cdé  fg中文h")
        for _ in 0..<3000 {
            let words = String((0..<Int.random(in: 1...120, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            let all = Array(words.unicodeScalars)
            let lower = Int.random(in: 0..<all.count, using: &random), upper = Int.random(in: (lower + 1)...all.count, using: &random)
            let hit = TranscriptPane.Line(episodeId: 1, start: 0, text: words, marks: [lower..<upper])
            let width = Int.random(in: 6...60, using: &random)
            let (shown, shownMarks) = TranscriptRenderer.excerpt(hit, width: width)
            XCTAssertLessThanOrEqual(DisplayWidth.of(shown), width)
            let cutScalars = Array(shown.unicodeScalars)
            for mark in shownMarks {
                XCTAssertTrue(mark.upperBound <= cutScalars.count, "\(mark) in \(shown)")
                let marked = String(String.UnicodeScalarView(cutScalars[mark]))
                let original = String(String.UnicodeScalarView(all[lower..<upper]))
                XCTAssertTrue(original.hasPrefix(marked) || marked.hasSuffix("…"), "“\(marked)” of “\(original)” in “\(shown)”")
            }
        }
    }
}
