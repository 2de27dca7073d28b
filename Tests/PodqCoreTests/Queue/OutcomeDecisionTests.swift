import PodqCore
import PodqHTTP
import XCTest

/// Every way an operation can stop, turned into its row's next state, without I/O.
final class OutcomeDecisionTests: XCTestCase {
    private let now = 1_000.0

    private func row(_ state: StoredState = .downloading, attempts: Int = 1) -> DownloadRecord {
        var r = DownloadRecord(id: 1, position: 1, url: "http://h/a.mp3", title: "a", destination: "/d/a")
        r.state = state
        r.attempts = attempts
        return r
    }

    private func decide(
        _ row: DownloadRecord, _ ended: DownloadState, error: DownloadError? = nil,
        hold: OutcomeDecision.Hold = .none, maxAttempts: Int = 3
    ) -> OutcomeDecision.Decision {
        OutcomeDecision.decide(
            .init(
                row: row, ended: ended, error: error, progress: DownloadProgress(downloadedLength: 40, expectedLength: 100),
                validators: ResourceValidators(strongETag: "\"e\""), finalPath: "/d/a.mp3", maxAttempts: maxAttempts,
                hold: hold, now: now)
        ) { attempt, retryAfter in retryAfter ?? Double(attempt) * 10 }
    }

    func testCompletedSavesTheFileAndItsFigures() {
        let d = decide(row(), .completed)
        XCTAssertEqual(d.outcome, .completed)
        XCTAssertEqual(d.row?.state, .completed)
        XCTAssertEqual(d.row?.destination, "/d/a.mp3")
        XCTAssertEqual(d.row?.bytesReceived, 40)
        XCTAssertEqual(d.row?.completedAt, now)
        XCTAssertEqual(d.row?.etag, "\"e\"")
        XCTAssertNil(d.row?.lastError)
    }

    func testAStopByTheRunnerLeavesTheRowQueuedAndAFullDiskPaused() {
        XCTAssertEqual(decide(row(), .paused).row?.state, .queued, "quit, signal, lowered limit: resumes at the next start")
        XCTAssertEqual(decide(row(), .paused, hold: .stopping).row?.state, .queued)
        XCTAssertEqual(decide(row(), .paused, hold: .diskFull).row?.state, .paused)
        XCTAssertEqual(decide(row(), .paused).outcome, .stopped)
        XCTAssertEqual(decide(row(), .paused).row?.bytesReceived, 40)
    }

    func testCancelledEmptiesTheRow() {
        let d = decide(row(), .cancelled)
        XCTAssertEqual(d.outcome, .cancelled)
        XCTAssertEqual(d.row?.state, .cancelled)
        XCTAssertEqual(d.row?.bytesReceived, 0)
    }

    func testATemporaryFailureRetriesLaterWithItsReason() {
        let d = decide(row(attempts: 2), .failed(reason: "reset"), error: .connectionLost("reset"))
        XCTAssertEqual(d.outcome, .retrying(in: 20, reason: "reset"))
        XCTAssertEqual(d.row?.state, .queued)
        XCTAssertEqual(d.row?.retryAt, now + 20)
        XCTAssertEqual(d.row?.lastError, "reset")
        let asked = decide(row(), .failed(reason: "busy"), error: .httpStatus(code: 503, url: "u", retryAfter: 7))
        XCTAssertEqual(asked.row?.retryAt, now + 7, "Retry-After wins")
    }

    func testTheLastAttemptAPermanentErrorOrQuittingFails() {
        let last = decide(row(attempts: 3), .failed(reason: "reset"), error: .connectionLost("reset"))
        XCTAssertEqual(last.outcome, .failed(reason: "reset (after 3 attempts)"))
        XCTAssertEqual(last.row?.state, .failed)
        let permanent = decide(row(), .failed(reason: "404"), error: .httpStatus(code: 404, url: "u", retryAfter: nil))
        XCTAssertEqual(permanent.outcome, .failed(reason: "404"))
        let quitting = decide(row(), .failed(reason: "reset"), error: .connectionLost("reset"), hold: .stopping)
        XCTAssertEqual(quitting.row?.state, .failed)
    }

    func testAFullDiskPausesWithTheReason() {
        let d = decide(row(), .failed(reason: "full"), error: .diskFull(path: "/d/a"))
        XCTAssertEqual(d.outcome, .diskFull(reason: "full"))
        XCTAssertEqual(d.row?.state, .paused)
        XCTAssertEqual(d.row?.lastError, "full")
    }

    /// A row moved on by a person or another process while it ran keeps that state.
    func testAPersonsDecisionStands() {
        let paused = decide(row(.paused), .paused)
        XCTAssertEqual(paused.row?.state, .paused)
        XCTAssertEqual(paused.row?.bytesReceived, 40)
        XCTAssertEqual(decide(row(.paused), .failed(reason: "x"), error: .connectionLost("x")).row?.state, .paused)
        XCTAssertNil(decide(row(.cancelled), .paused).row, "cancelled stays cancelled")
        XCTAssertEqual(decide(row(.cancelled), .cancelled).outcome, .cancelled)
        XCTAssertEqual(decide(row(.paused), .completed).row?.state, .completed, "a file already committed is completed")
    }
}
