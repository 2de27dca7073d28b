import PodqBase
import PodqCore
import PodqUI
import XCTest

/// Render snapshots: rows in, text out, compared with the expected screen.
final class DownloadTableRendererTests: XCTestCase {
    private let rows = [
        DownloadRow(
            id: 1, title: "Show — Episode one", state: .downloading, fraction: 0.5, received: 5_000_000,
            expected: 10_000_000, speed: 1_250_000, eta: 4),
        DownloadRow(id: 2, title: "ポッドキャスト 🎧", state: .queued, fraction: nil, received: 0, expected: nil, speed: 0, eta: nil),
        DownloadRow(
            id: 3, title: "Gone", state: .failed(reason: "HTTP 404"), fraction: 0, received: 0, expected: 100,
            speed: 0, eta: nil, error: "HTTP 404"),
        DownloadRow(id: 4, title: "Done", state: .completed, fraction: 1, received: 2_000, expected: 2_000, speed: 0, eta: nil),
    ]

    func testWideLayoutShowsEveryColumn() {
        let text = DownloadTableRenderer().lines(rows, width: 100).joined(separator: "\n")
        XCTAssertEqual(
            text,
            """
            downloading Show — Episode one           ████████········  50% 5.0 MB / 10.0 MB    1.2 MB/s   4s
            queued      ポッドキャスト 🎧            ················   ?% 0 B / ?             -          -
            failed      Gone                         ················   0% 0 B / 100 B         -          -
            completed   Done                         ████████████████ 100% 2.0 KB / 2.0 KB     -          -
            """)
        XCTAssertTrue(text.split(separator: "\n").allSatisfy { DisplayWidth.of(String($0)) <= 100 })
    }

    func testNarrowLayoutDropsColumnsInsteadOfWrapping() {
        let lines = DownloadTableRenderer().lines(rows, width: 40)
        XCTAssertEqual(
            lines.joined(separator: "\n"),
            """
            downloading Episode one  █████·····  50%
            queued      ポッドキャ…  ··········   ?%
            failed      Gone         ··········   0%
            completed   Done         ██████████ 100%
            """)
        XCTAssertTrue(lines.allSatisfy { DisplayWidth.of($0) <= 40 })
    }

    func testASegmentedDownloadShowsItsConnectionsAndTheHolesBetweenItsSegments() {
        var row = DownloadRow(
            id: 1, title: "Show — Big", state: .downloading, fraction: 0.5, received: 50, expected: 100,
            speed: 1_000_000, eta: 50)
        row.spans = [0...0.25, 0.5...0.75]
        row.connections = 4
        XCTAssertEqual(
            DownloadTableRenderer().lines([row], width: 100)[0],
            "4 segments  Show — Big                   ████····████····  50% 50 B / 100 B        1.0 MB/s   50s")
        row.state = .paused
        XCTAssertTrue(DownloadTableRenderer().lines([row], width: 100)[0].hasPrefix("paused"), "a stopped one shows its state and a plain bar")
    }

    func testUnknownLengthShowsAMovingBar() {
        let row = DownloadRow(id: 1, title: "x", state: .downloading, fraction: nil, received: 10, expected: nil, speed: 0, eta: nil)
        let a = DownloadTableRenderer(tick: 0).lines([row], width: 60)[0]
        let b = DownloadTableRenderer(tick: 3).lines([row], width: 60)[0]
        XCTAssertNotEqual(a, b, "the indeterminate bar moves")
        XCTAssertTrue(a.contains("███"))
    }

    func testTitlesWithEscapeSequencesCannotReachTheGrid() {
        var grid = Grid(width: 60, height: 1)
        let model = DownloadRow(
            id: 1, title: SafeText.clean("\u{1B}]0;owned\u{07}Evil\u{1B}[2J"), state: .queued, fraction: nil,
            received: 0, expected: nil, speed: 0, eta: nil)
        DownloadTableRenderer().render([model], into: &grid)
        XCTAssertFalse(grid.text.unicodeScalars.contains { $0.value < 0x20 })
        XCTAssertTrue(grid.text.contains("Evil"))
    }

    func testAt80ColumnsSpeedAndETAStayAndLongPodcastNamesAreCutFirst() {
        let rows = [
            DownloadRow(
                id: 1, title: "The Very Long Podcast Name Weekly — Episode 12: Resume", state: .downloading,
                fraction: 0.25, received: 1_000_000, expected: 4_000_000, speed: 250_000, eta: 12)
        ]
        XCTAssertEqual(
            DownloadTableRenderer().lines(rows, width: 80),
            [
                "downloading The Very Lon… — Episode 12: Resume ██▌·······  25% 250.0 KB/s 12s"
            ])
    }
}

final class ProgressBarTests: XCTestCase {
    func testTheLastCellFillsInEighths() {
        XCTAssertEqual(ProgressBar.cells(fraction: 0, width: 4).filled, "")
        XCTAssertEqual(ProgressBar.cells(fraction: 1.0 / 32, width: 4).filled, "▏")
        XCTAssertEqual(ProgressBar.cells(fraction: 0.5, width: 4).filled, "██")
        XCTAssertEqual(ProgressBar.cells(fraction: 0.5 + 3.0 / 32, width: 4).filled, "██▍")
        XCTAssertEqual(ProgressBar.cells(fraction: 31.0 / 32, width: 4).filled, "███▉")
        XCTAssertEqual(ProgressBar.cells(fraction: 1, width: 4).filled, "████")
        XCTAssertEqual(ProgressBar.cells(fraction: 2, width: 4).filled, "████", "never past the end")
        XCTAssertEqual(String(ProgressBar.cells(spans: [0...0.25, 0.5...0.75], width: 8)), "██··██··")
        XCTAssertEqual(String(ProgressBar.cells(spans: [0...0.0625], width: 8)), "▌·······", "a cell half written is half filled")
        XCTAssertEqual(String(ProgressBar.cells(spans: [0...0.001], width: 8)), "▏·······", "a cell with any byte shows it")
        XCTAssertEqual(String(ProgressBar.cells(spans: [0...0.5, 0.5...1], width: 4)), "████")
        for n in 0...64 {
            let bar = ProgressBar.cells(fraction: Double(n) / 64, width: 7)
            XCTAssertEqual(bar.filled.count + bar.empty.count, 7, "always the bar's width")
        }
    }
}

final class LayoutWidthTests: XCTestCase {
    /// At 80 columns a long podcast name stays, cut to 8 cells, and the episode's title is cut too.
    func testTheNarrowTableKeepsThePodcastAbbreviated() {
        var grid = Grid(width: 80, height: 1)
        let row = DownloadRow(
            id: 1, title: "The Incredibly Long Podcast Name — Episode 123: an even longer episode title that goes on",
            state: .downloading, fraction: 0.5, received: 5, expected: 10, speed: 100, eta: 1)
        DownloadTableRenderer().render([row], into: &grid)
        XCTAssertTrue(grid.text.contains("The Inc… — Episode 123"), grid.text)
    }

    /// At 220 columns the Episodes view gives the podcast's name room.
    func testAWideScreenGivesThePodcastRoom() {
        let name = "A Podcast Name of Thirty Cells"
        var state = TUIState()
        state.view = .episodes
        let snapshot = TUISnapshot(episodes: [
            EpisodeRow(id: 1, podcastId: 1, podcast: name, title: "One", published: nil, duration: nil, length: nil, state: .new)
        ])
        XCTAssertTrue(TUIRenderer().render(&state, snapshot, width: 220, height: 8).text.contains(name))
        XCTAssertFalse(TUIRenderer().render(&state, snapshot, width: 100, height: 8).text.contains(name), "cut at 100 columns")
    }
}
