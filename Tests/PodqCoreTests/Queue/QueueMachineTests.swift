import PodqServer
import XCTest

@testable import PodqCore

/// The runner's decisions, event by event, with plain values: no store, no clock, no network.
final class QueueMachineTests: XCTestCase {
    typealias Action = QueueMachine.Action

    private func row(_ id: Int64, _ state: StoredState = .queued, host: String = "a", retryAt: Double? = nil) -> DownloadRecord {
        var r = DownloadRecord(id: id, position: id, url: "http://\(host)/\(id).mp3", title: "\(id)", destination: "/d/\(id).mp3")
        r.state = state
        r.retryAt = retryAt
        return r
    }

    private func stamp(_ own: Int, _ others: Int64 = 0) -> QueueStore.ChangeStamp {
        QueueStore.ChangeStamp(own: own, others: others)
    }

    /// A look that reads, and the plan of `rows`: the actions of both.
    private func lookAndPlan(
        _ m: inout QueueMachine, _ rows: [DownloadRecord], running: [Int64: String] = [:], now: Double, stamp: QueueStore.ChangeStamp
    ) -> [Action] {
        let look = m.look(now: now, stamp: stamp, anyRunning: !running.isEmpty)
        XCTAssertEqual(look, [.readRows])
        return m.plan(rows: rows, running: running, now: now)
    }

    // MARK: - When the rows are read

    func testTheFirstLookReadsAndAnUnchangedIdleQueueIsNotReadAgain() {
        var m = QueueMachine(limit: 2, perHost: 2)
        XCTAssertEqual(lookAndPlan(&m, [row(1, .completed)], now: 100, stamp: stamp(1)), [.checkpoint])
        XCTAssertEqual(m.look(now: 100.5, stamp: stamp(1), anyRunning: false), [], "nothing changed: no read")
        XCTAssertEqual(m.look(now: 500, stamp: stamp(1), anyRunning: false), [], "time alone changes nothing when no retry waits")
        XCTAssertEqual(m.look(now: 501, stamp: stamp(2), anyRunning: false), [.readRows], "this process wrote")
        _ = m.plan(rows: [row(1, .completed)], running: [:], now: 501)
        XCTAssertEqual(m.look(now: 502, stamp: stamp(2, 7), anyRunning: false), [.readRows], "another process wrote")
    }

    func testEveryChangeOfWhatAPlanDependsOnReadsTheRowsAgain() {
        let changes: [(String, (inout QueueMachine) -> Void)] = [
            ("limit", { $0.setLimit(5) }),
            ("per host", { $0.setPerHost(1) }),
            ("stop", { $0.stop() }),
            ("disk full", { $0.diskFull() }),
        ]
        for (name, change) in changes {
            var m = QueueMachine(limit: 2, perHost: 2)
            _ = lookAndPlan(&m, [row(1)], running: [:], now: 100, stamp: stamp(1))
            _ = m.look(now: 100, stamp: stamp(1), anyRunning: false)
            change(&m)
            XCTAssertEqual(m.look(now: 100.2, stamp: stamp(1), anyRunning: false), [.readRows], name)
        }
    }

    func testWhileADownloadRunsEveryLookReads() {
        var m = QueueMachine(limit: 2, perHost: 2)
        _ = lookAndPlan(&m, [row(1)], now: 100, stamp: stamp(1))
        XCTAssertEqual(m.look(now: 100.5, stamp: stamp(1), anyRunning: true), [.readRows], "its row may be cancelled by another process")
    }

    // MARK: - The plan's timer

    func testTheTimerRingsAtTheEarliestRetryAndIsSetOnlyWhenThatTimeMoves() {
        var m = QueueMachine(limit: 2, perHost: 2)
        let waiting = [row(1, retryAt: 160), row(2, retryAt: 130)]
        XCTAssertEqual(lookAndPlan(&m, waiting, now: 100, stamp: stamp(1)), [.setTimer(at: 130), .checkpoint])
        XCTAssertEqual(m.timer, 130)
        XCTAssertEqual(m.look(now: 100.2, stamp: stamp(1), anyRunning: false), [], "same time: the timer stays")
        XCTAssertEqual(lookAndPlan(&m, waiting, now: 100.4, stamp: stamp(2)), [], "read again, same earliest time: not set again")
        XCTAssertEqual(lookAndPlan(&m, [row(1, retryAt: 160)], now: 100.6, stamp: stamp(3)), [.setTimer(at: 160)], "the earliest moved")
        XCTAssertEqual(lookAndPlan(&m, [row(1, .paused)], now: 101, stamp: stamp(4)), [.cancelTimer, .checkpoint], "nothing waits")
        XCTAssertNil(m.timer)
    }

    func testATimerThatRangALittleEarlyIsSetAgainAndTheDueRowStartsWhenItIsDue() {
        var m = QueueMachine(limit: 2, perHost: 2)
        let rows = [row(1, retryAt: 130)]
        _ = lookAndPlan(&m, rows, now: 100, stamp: stamp(1))
        m.timerRang()
        XCTAssertEqual(m.look(now: 129.99, stamp: stamp(1), anyRunning: false), [.setTimer(at: 130)], "early: set again, no read")
        m.timerRang()
        XCTAssertEqual(m.look(now: 130, stamp: stamp(1), anyRunning: false), [.readRows], "due: read")
        XCTAssertEqual(m.plan(rows: rows, running: [:], now: 130), [.start(1), .checkpoint], "it rang: nothing to cancel")
    }

    func testADueTimeIsNeverSetInThePast() {
        var m = QueueMachine(limit: 1, perHost: 1)
        // Row 2 is due but waits for the one slot; row 3 waits 5 s.
        let actions = lookAndPlan(&m, [row(1, .downloading), row(2, retryAt: 90), row(3, retryAt: 105)], running: [1: "a"], now: 100, stamp: stamp(1))
        XCTAssertEqual(actions, [.setTimer(at: 105), .checkpoint])
    }

    // MARK: - Stops, starts, checkpoints

    func testStopsComeFirstInIdOrderThenStartsInQueueOrder() {
        // The ones being stopped still hold their slots until they end: one slot is free of four.
        var m = QueueMachine(limit: 4, perHost: 4)
        let rows = [row(5), row(4, .cancelled), row(3, .downloading), row(2, .paused), row(1)]
        let actions = lookAndPlan(&m, rows, running: [4: "a", 3: "a", 2: "a"], now: 100, stamp: stamp(1))
        XCTAssertEqual(actions, [.stop(2, .pause), .stop(4, .cancel), .start(5), .checkpoint])
    }

    func testACheckpointAtMostOnceASecond() {
        var m = QueueMachine(limit: 2, perHost: 2)
        let rows = [row(1, .downloading)]
        XCTAssertEqual(lookAndPlan(&m, rows, running: [1: "a"], now: 100, stamp: stamp(1)), [.checkpoint])
        XCTAssertEqual(lookAndPlan(&m, rows, running: [1: "a"], now: 100.5, stamp: stamp(1)), [])
        XCTAssertEqual(lookAndPlan(&m, rows, running: [1: "a"], now: 100.99, stamp: stamp(1)), [])
        XCTAssertEqual(lookAndPlan(&m, rows, running: [1: "a"], now: 101, stamp: stamp(1)), [.checkpoint])
    }

    // MARK: - The hold

    func testNothingStartsWhileItHoldsAndAResumeLiftsOnlyAFullDisksPause() {
        var m = QueueMachine(limit: 2, perHost: 2)
        m.diskFull()
        XCTAssertEqual(lookAndPlan(&m, [row(1)], now: 100, stamp: stamp(1)), [.checkpoint], "paused by a full disk")
        m.resumed()
        XCTAssertEqual(m.hold, .none)
        XCTAssertEqual(lookAndPlan(&m, [row(1)], now: 100.1, stamp: stamp(1)), [.start(1)])

        var s = QueueMachine(limit: 2, perHost: 2)
        s.stop()
        s.diskFull()
        s.resumed()
        XCTAssertEqual(s.hold, .stopping, "a stop is never undone by a full disk or a resume")
        XCTAssertEqual(lookAndPlan(&s, [row(1)], now: 100, stamp: stamp(1)), [.checkpoint])
    }

    /// Every combination of the hold, running downloads, the TUI's way and a queue with or without rows.
    func testWhenTheRunIsDone() {
        for hold in ["none", "stopping", "diskFull"] {
            for anyRunning in [false, true] {
                for untilStopped in [false, true] {
                    for queued in [false, true] {
                        var m = QueueMachine(limit: 1, perHost: 1)
                        if hold == "stopping" { m.stop() }
                        if hold == "diskFull" { m.diskFull() }
                        _ = lookAndPlan(&m, queued ? [row(1, retryAt: 1e12)] : [], now: 100, stamp: stamp(1))
                        let expected: Bool =
                            if anyRunning { false } else if hold == "stopping" { true } else if untilStopped { false } else {
                                hold == "diskFull" || !queued
                            }
                        XCTAssertEqual(
                            m.isDone(anyRunning: anyRunning, untilStopped: untilStopped), expected,
                            "hold \(hold), running \(anyRunning), untilStopped \(untilStopped), queued \(queued)")
                    }
                }
            }
        }
    }

    // MARK: - Any sequence of events

    /// Random sequences of looks, plans, rings, limit changes and holds: the machine's promises hold at
    /// every step. A timer action only when the timer's time changes, and it then says that time; the
    /// rows are read whenever the stamp moved or a download runs; nothing starts while it holds; the
    /// running and the started never pass the limit; a stop names only a running download.
    func testItsPromisesHoldForAnySequenceOfEvents() {
        var generator = SeededGenerator(seed: 44)
        for _ in 0..<300 {
            var m = QueueMachine(limit: Int.random(in: 1...4, using: &generator), perHost: Int.random(in: 1...3, using: &generator))
            var now = 1000.0, own = 0, running: [Int64: String] = [:]
            var rows: [DownloadRecord] = (1...Int64.random(in: 1...8, using: &generator)).map { id in
                let states: [StoredState] = [.queued, .queued, .paused, .completed, .failed]
                let r = row(
                    id, states.randomElement(using: &generator)!, host: ["a", "b", "c"].randomElement(using: &generator)!,
                    retryAt: Bool.random(using: &generator) ? now + Double.random(in: -5...60, using: &generator) : nil)
                return r
            }
            var lastStamp: QueueStore.ChangeStamp?
            for _ in 0..<40 {
                switch Int.random(in: 0..<10, using: &generator) {
                case 0: m.setLimit(Int.random(in: 0...4, using: &generator))
                case 1: m.setPerHost(Int.random(in: 0...3, using: &generator))
                case 2: m.timerRang()
                case 3 where !running.isEmpty:
                    // A download ends: its row is no longer running.
                    let id = running.keys.randomElement(using: &generator)!
                    running[id] = nil
                    rows = rows.map { $0.id == id ? row(id, .completed) : $0 }
                    own += 1
                case 4: own += 1  // another write
                case 5: if Int.random(in: 0..<8, using: &generator) == 0 { m.stop() }
                default: break
                }
                now += Double.random(in: 0...3, using: &generator)
                let holdBefore = m.hold
                let timerBefore = m.timer
                let stampNow = stamp(own)
                let look = m.look(now: now, stamp: stampNow, anyRunning: !running.isEmpty)
                if stampNow != lastStamp || !running.isEmpty {
                    XCTAssertEqual(look, [.readRows], "a changed queue or a running download is always read")
                }
                var actions = look
                if look == [.readRows] {
                    lastStamp = stampNow
                    actions = m.plan(rows: rows, running: running, now: now)
                }
                var timer = timerBefore
                var started = 0
                for action in actions {
                    switch action {
                    case .readRows: XCTFail("a plan never asks to read again")
                    case .stop(let id, _): XCTAssertNotNil(running[id], "a stop names a running download")
                    case .start(let id):
                        XCTAssertEqual(holdBefore, .none, "nothing starts while it holds")
                        XCTAssertNil(running[id])
                        started += 1
                        running[id] = QueuePlanner.host(of: rows.first { $0.id == id }!.url)
                        rows = rows.map { $0.id == id ? row(id, .downloading, host: running[id]!) : $0 }
                    case .setTimer(let at):
                        XCTAssertNotEqual(at, timer, "set only when its time changes")
                        timer = at
                    case .cancelTimer:
                        XCTAssertNotNil(timer, "cancelled only when one was set")
                        timer = nil
                    case .checkpoint: break
                    }
                }
                XCTAssertEqual(m.timer, timer, "the timer is what the actions said")
                XCTAssertLessThanOrEqual(started, m.limit)
                XCTAssertLessThanOrEqual(running.count, max(m.limit, running.count - started))
            }
        }
    }
}
