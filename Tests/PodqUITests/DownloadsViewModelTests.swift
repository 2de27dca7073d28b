import PodqCore
import PodqTestSupport
import PodqUI
import XCTest

final class DownloadsViewModelTests: XCTestCase {
    /// Real downloads over loopback; the rows the view model hands out advance to completion.
    func testRowsAdvanceWithRealDownloads() async throws {
        let server = try await TestServer.start()
        let dir = TemporaryDirectory()
        let transport = AsyncHTTPTransport()
        defer { dir.remove() }
        let ops = (1...2).map { i in
            DownloadOperation(id: i, request: DownloadRequest(
                url: server.dataURL(size: 600_000, seed: UInt64(i), name: "e\(i).mp3", ["rate": "400000"]),
                destination: dir.file("e\(i).mp3"), title: "Show — \u{1B}[31mEpisode \(i)"), transport: transport)
        }
        let model = DownloadsViewModel()
        ops.forEach { model.track($0) }
        XCTAssertEqual(model.snapshot().map(\.state), [.queued, .queued])
        XCTAssertEqual(model.snapshot().map(\.title), ["Show — Episode 1", "Show — Episode 2"], "titles are cleaned")

        let queue = DownloadQueue(maxConcurrent: 2)
        await queue.add(ops)
        var snapshots: [[DownloadRow]] = []
        var sawSpeedAndETA = false
        while ops.contains(where: { !$0.state.isFinished }) {
            try await Task.sleep(for: .milliseconds(100))
            if model.needsDisplay {
                let rows = model.snapshot()
                snapshots.append(rows)
                if rows.contains(where: { $0.state == .downloading && $0.speed > 0 && $0.eta != nil }) { sawSpeedAndETA = true }
            }
        }
        await queue.waitUntilIdle()
        let final = model.snapshot()
        XCTAssertEqual(final.map(\.state), [.completed, .completed])
        XCTAssertEqual(final.map(\.fraction), [1, 1])
        XCTAssertEqual(final.map(\.received), [600_000, 600_000])
        XCTAssertGreaterThanOrEqual(snapshots.count, 5, "the rows changed while downloading")
        let received = snapshots.map { $0[0].received }
        XCTAssertEqual(received, received.sorted(), "received only grows")
        XCTAssertGreaterThan(Set(received).count, 3, "intermediate values were seen")
        XCTAssertTrue(sawSpeedAndETA, "a running row shows a speed and an ETA")
        await transport.shutdown()
        await server.stop()
    }
}
