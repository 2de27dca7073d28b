import PodqCore
import XCTest

/// The planner's rules, case by case, without a store or a network.
final class QueuePlannerTests: XCTestCase {
    /// A row: `id`, its state, its host, and a retry time.
    private func row(_ id: Int64, _ state: StoredState = .queued, host: String = "a", retryAt: Double? = nil) -> DownloadRecord {
        var r = DownloadRecord(id: id, position: id, url: "http://\(host)/\(id).mp3", title: "\(id)", destination: "/d/\(id).mp3")
        r.state = state
        r.retryAt = retryAt
        return r
    }

    private func plan(
        _ rows: [DownloadRecord], running: [Int64: String] = [:], limit: Int = 3, perHost: Int = 9,
        now: Double = 100, holding: Bool = false
    ) -> QueuePlanner.Plan {
        QueuePlanner.plan(.init(rows: rows, running: running, limit: limit, perHost: perHost, now: now, holding: holding))
    }

    func testQueuedRowsStartInQueueOrderUpToTheLimit() {
        let p = plan((1...5).map { row($0) }, limit: 3)
        XCTAssertEqual(p.start, [1, 2, 3])
        XCTAssertEqual(p.queued, 5)
        XCTAssertEqual(p.stop, [:])
    }

    func testRunningDownloadsTakeTheirSlots() {
        let p = plan([row(1, .downloading), row(2), row(3)], running: [1: "a"], limit: 2)
        XCTAssertEqual(p.start, [2])
    }

    func testOnlyQueuedRowsStart() {
        let rows: [DownloadRecord] = [row(1, .paused), row(2, .failed), row(3, .cancelled), row(4, .completed), row(5)]
        XCTAssertEqual(plan(rows).start, [5])
        XCTAssertEqual(plan(rows).queued, 1)
    }

    func testARetryWaitsForItsTimeAndSaysWhenToWake() {
        let p = plan([row(1, retryAt: 130), row(2, retryAt: 105), row(3, retryAt: 90)])
        XCTAssertEqual(p.start, [3])
        XCTAssertEqual(p.nextDue, 5)
        XCTAssertEqual(p.queued, 3, "a retry that waits still counts as queued")
    }

    func testThePerHostCapHoldsARowBackAndLetsOtherHostsPass() {
        let rows = [row(1, host: "a"), row(2, host: "a"), row(3, host: "a"), row(4, host: "b")]
        let p = plan(rows, limit: 4, perHost: 2)
        XCTAssertEqual(p.start, [1, 2, 4])
        XCTAssertEqual(p.waitingForHost, 1)
        let busy = plan([row(1, .downloading, host: "a"), row(2, host: "a"), row(3, host: "b")], running: [1: "a"], limit: 4, perHost: 1)
        XCTAssertEqual(busy.start, [3])
        XCTAssertEqual(busy.waitingForHost, 1)
    }

    func testNothingStartsWhileHolding() {
        let p = plan([row(1), row(2)], holding: true)
        XCTAssertEqual(p.start, [])
        XCTAssertEqual(p.queued, 2)
        XCTAssertEqual(p.waitingForHost, 0)
    }

    func testRowsChangedElsewhereStopTheirDownloads() {
        let rows = [row(1, .cancelled), row(2, .paused), row(3, .downloading)]
        let p = plan(rows, running: [1: "a", 2: "a", 3: "a", 4: "a"])
        XCTAssertEqual(p.stop, [1: .cancel, 2: .pause, 4: .cancel], "4's row was removed")
    }

    func testALoweredLimitPausesTheLastInQueueOrder() {
        let rows = (1...4).map { row($0, .downloading) } + [row(5)]
        let p = plan(rows, running: [1: "a", 2: "a", 3: "a", 4: "a"], limit: 2)
        XCTAssertEqual(p.stop, [3: .pause, 4: .pause])
        XCTAssertEqual(p.start, [])
    }

    /// Pause all under the per-host cap: once every row is paused, nothing starts, whatever the
    /// running count or the host.
    func testPausedRowsNeverStartWhateverTheCap() {
        let rows = (1...6).map { row($0, .paused) }
        let p = plan(rows, running: [:], limit: 6, perHost: 2)
        XCTAssertEqual(p.start, [])
        XCTAssertEqual(p.queued, 0)
        XCTAssertEqual(p.waitingForHost, 0)
    }

    func testTheHostIsTheURLsLowercased() {
        XCTAssertEqual(QueuePlanner.host(of: "https://CDN.Example.org/x"), "cdn.example.org")
        XCTAssertEqual(QueuePlanner.host(of: "not a url"), "")
    }
}
