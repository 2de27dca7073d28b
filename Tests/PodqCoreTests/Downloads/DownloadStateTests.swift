import PodqCore
import XCTest

final class DownloadStateTests: XCTestCase {
    private let states: [DownloadState] = [.queued, .downloading, .paused, .cancelled, .failed(reason: "r"), .completed]

    /// Every (state, event) pair, against the table of valid transitions in DownloadState's docs.
    func testEveryTransitionMatchesTheTable() {
        let expected: [String: String] = [
            "queued+start": "downloading", "queued+pause": "paused", "queued+cancel": "cancelled",
            "queued+fail": "failed",
            "downloading+pause": "paused", "downloading+cancel": "cancelled", "downloading+fail": "failed",
            "downloading+finish": "completed",
            "paused+resume": "queued", "paused+cancel": "cancelled",
            "cancelled+retry": "queued",
            "failed+retry": "queued", "failed+cancel": "cancelled",
        ]
        var checked = 0
        for state in states {
            for event in DownloadEvent.allCases {
                let key = "\(state.name)+\(name(of: event))"
                XCTAssertEqual(state.applying(event)?.name, expected[key], key)
                checked += 1
            }
        }
        XCTAssertEqual(checked, 42)
    }

    func testFailureCarriesItsReason() {
        XCTAssertEqual(DownloadState.downloading.applying(.fail(reason: "disk full")), .failed(reason: "disk full"))
    }

    func testCompletedIsFinal() {
        for event in DownloadEvent.allCases { XCTAssertNil(DownloadState.completed.applying(event)) }
        XCTAssertTrue(DownloadState.completed.isFinished)
        XCTAssertFalse(DownloadState.paused.isFinished)
    }

    private func name(of event: DownloadEvent) -> String {
        switch event {
        case .start: "start"
        case .pause: "pause"
        case .resume: "resume"
        case .cancel: "cancel"
        case .fail: "fail"
        case .finish: "finish"
        case .retry: "retry"
        }
    }
}
