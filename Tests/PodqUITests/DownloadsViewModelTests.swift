import PodqCore
import PodqHTTP
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
            DownloadOperation(
                id: i,
                request: DownloadRequest(
                    url: server.dataURL(size: 600_000, seed: UInt64(i), name: "e\(i).mp3", ["rate": "400000"]),
                    destination: dir.file("e\(i).mp3"), title: "Show — \u{1B}[31mEpisode \(i)"), transport: transport)
        }
        let model = DownloadsViewModel()
        ops.forEach { model.track($0) }
        XCTAssertEqual(model.snapshot().map(\.state), [.queued, .queued])
        XCTAssertEqual(model.snapshot().map(\.title), ["Show — Episode 1", "Show — Episode 2"], "titles are cleaned")

        let running = ops.map { op in Task { await op.start() } }
        var snapshots: [[DownloadRow]] = []
        var sawSpeedAndETA = false
        let finished = await waitUntil(timeout: 60, every: 100) {
            if model.needsDisplay {
                let rows = model.snapshot()
                snapshots.append(rows)
                if rows.contains(where: { $0.state == .downloading && $0.speed > 0 && $0.eta != nil }) { sawSpeedAndETA = true }
            }
            return !ops.contains(where: { !$0.state.isFinished })
        }
        XCTAssertTrue(finished)
        for task in running { _ = await task.value }
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

    /// Given the stored queue (the TUI), every stored row is shown in order, with the feed's length
    /// as an estimate and the reason of a failure or a pending retry.
    func testStoredRowsWithEstimatesAndReasons() {
        func record(
            _ id: Int64, _ state: StoredState, received: Int64 = 0, expected: Int64? = nil, error: String? = nil,
            retryAt: Double? = nil
        ) -> DownloadRecord {
            var r = DownloadRecord(id: id, position: id, url: "http://h/\(id)", title: "T\(id)\u{1B}[2J", destination: "/d/\(id)")
            r.state = state
            r.bytesReceived = received
            r.bytesExpected = expected
            r.lastError = error
            r.retryAt = retryAt
            return r
        }
        let model = DownloadsViewModel(clock: { 0 })
        model.update(
            records: [
                record(1, .queued, error: "503: busy", retryAt: 5), record(2, .failed, received: 10, error: "404: gone"),
                record(3, .paused, received: 25, expected: 100), record(4, .completed, received: 7, expected: 7),
            ],
            estimates: [1: 1_000, 3: 999])
        let rows = model.snapshot()
        XCTAssertEqual(rows.map(\.id), [1, 2, 3, 4])
        XCTAssertEqual(rows.map(\.title), ["T1", "T2", "T3", "T4"], "titles are cleaned")
        XCTAssertEqual(rows.map(\.state), [.queued, .failed(reason: "404: gone"), .paused, .completed])
        XCTAssertEqual(rows.map(\.error), ["retrying soon after: 503: busy", "404: gone", nil, nil])
        XCTAssertEqual(rows.map(\.estimate), [1_000, nil, nil, nil], "an estimate only while the real length is unknown")
        XCTAssertEqual(rows.map(\.fraction), [nil, nil, 0.25, 1])
        XCTAssertFalse(model.needsDisplay)
        model.update(records: [record(1, .queued, error: "503: busy", retryAt: 5)], estimates: [:])
        XCTAssertTrue(model.needsDisplay, "a change in the store asks for a frame")
    }
}

final class OverallGaugeTests: XCTestCase {
    private func record(_ id: Int64, _ state: StoredState, received: Int64, expected: Int64) -> DownloadRecord {
        var r = DownloadRecord(id: id, position: id, url: "http://h/\(id)", title: "T\(id)", destination: "/d/\(id)")
        r.state = state
        r.bytesReceived = received
        r.bytesExpected = expected
        return r
    }

    /// The status line's gauge never goes back as rows complete: a completed row stays in it until
    /// nothing is unfinished; then it is empty for the next batch. Every step of random batches.
    func testTheGaugeNeverGoesBack() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let model = DownloadsViewModel(clock: { 0 })
            let count = Int.random(in: 1...6, using: &random)
            let sizes: [Int64] = (0..<count).map { _ in Int64.random(in: 1...1_000, using: &random) }
            var received = [Int64](repeating: 0, count: count)
            var last = -1.0
            while received != sizes {
                let i = Int.random(in: 0..<count, using: &random)
                received[i] = min(sizes[i], received[i] + Int64.random(in: 0...400, using: &random))
                model.update(
                    records: (0..<count).map { j in
                        record(Int64(j + 1), received[j] == sizes[j] ? .completed : .downloading, received: received[j], expected: sizes[j])
                    })
                let totals = TUISnapshot(downloads: model.snapshot()).totals
                guard totals.total > 0 else { break }
                let fraction = Double(totals.received) / Double(totals.total)
                XCTAssertGreaterThanOrEqual(fraction, last, "\(received) of \(sizes)")
                last = fraction
            }
            model.update(records: (0..<count).map { record(Int64($0 + 1), .completed, received: 1, expected: 1) })
            XCTAssertEqual(TUISnapshot(downloads: model.snapshot()).totals.total, 0, "all done: no gauge")
        }
    }
}

final class EpisodeStatesTests: XCTestCase {
    /// The Episodes view's states come from the queue's rows: the newest row not cancelled speaks
    /// for its episode; rows without an episode are ignored.
    func testEpisodeStatesFollowTheQueue() {
        func row(_ id: Int64, episode: Int64?, _ state: StoredState) -> DownloadRecord {
            var r = DownloadRecord(id: id, position: id, url: "http://h/\(id)", title: "t", destination: "/d/\(id)")
            r.episodeId = episode
            r.state = state
            return r
        }
        let model = DownloadsViewModel()
        model.update(records: [
            row(1, episode: 10, .completed), row(2, episode: 11, .cancelled), row(3, episode: 11, .queued),
            row(4, episode: 12, .failed), row(5, episode: nil, .downloading), row(6, episode: 13, .queued),
            row(7, episode: 13, .cancelled),
        ])
        XCTAssertEqual(model.episodeStates, [10: .completed, 11: .queued, 12: .failed, 13: .queued])
        model.update(records: [row(1, episode: 10, .completed)])
        XCTAssertEqual(model.episodeStates, [10: .completed], "a removed row's episode is new again")
    }

    /// A running download's state reaches its episode with its row, in the same snapshot: the Episodes
    /// view never says `downloading` of an episode the Downloads view shows completed or cancelled
    /// (it did, until the runner's next read of the store).
    func testAnOperationsStateReachesItsEpisodeWithItsRow() async throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let transport = AsyncHTTPTransport()
        var stored = DownloadRecord(id: 1, position: 1, url: "http://h/1", title: "t", destination: dir.file("e.mp3"))
        stored.episodeId = 20
        stored.state = .queued
        let model = DownloadsViewModel()
        model.update(records: [stored])
        XCTAssertEqual(model.episodeStates, [20: .queued])
        let operation = DownloadOperation(
            id: 1, request: DownloadRequest(url: URL(string: "http://127.0.0.1:9/e.mp3")!, destination: dir.file("e.mp3"), title: "t"),
            transport: transport)
        model.track(operation)
        operation.cancel()
        let both = await waitUntil { model.snapshot().first?.state == .cancelled }
        XCTAssertTrue(both)
        XCTAssertEqual(model.episodeStates, [20: .cancelled], "with its row, before the store says so")
        model.update(records: [stored])  // a read of the store made before the cancel was saved
        XCTAssertEqual(model.episodeStates, [20: .cancelled], "the live state is newer than a stale read")
        await transport.shutdown()
    }

    /// The observers are the one path from an operation to the rows: between two coalesced deliveries
    /// a frame shows the figure last delivered, not the operation's property of the moment; the
    /// trailing delivery brings it up to date, and the final state is flushed.
    func testRowsShowWhatTheObserversDeliveredNotThePropertiesNow() async throws {
        let clock = ManualScheduler()
        let bytes = [UInt8](repeating: 7, count: 20_000)
        let seen = Recorder<[Int64]>()
        let box = Recorder<DownloadOperation>()
        let model = DownloadsViewModel()
        let transport = MemoryTransport { _, _ in
            var reply = MemoryTransport.Reply.ok(bytes, chunkSize: 1000)
            reply.beforeChunk = { index in
                guard index == 10, let op = box.values.first else { return }
                seen.append([model.snapshot()[0].received, op.progress.downloadedLength])
                clock.advance(byMilliseconds: 60)
                seen.append([model.snapshot()[0].received, op.progress.downloadedLength])
            }
            return reply
        }
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let op = DownloadOperation(
            id: 1, request: DownloadRequest(url: URL(string: "http://h.example/f.mp3")!, destination: dir.file("f.mp3"), title: "f"),
            transport: transport, observationCenter: ObservationCenter(scheduler: clock))
        box.append(op)
        model.track(op)
        await op.start()
        let values = seen.values
        XCTAssertEqual(values.count, 2)
        XCTAssertEqual(values.first?[1], 10_000)
        XCTAssertLessThan(values.first?[0] ?? .max, 10_000, "between deliveries a frame shows the last delivered figure")
        XCTAssertEqual(values.last?[0], 10_000, "the trailing delivery brings it up to date")
        XCTAssertEqual(model.snapshot().first?.received, 20_000)
        XCTAssertEqual(model.snapshot().first?.state, .completed, "the final state is flushed")
    }
}
