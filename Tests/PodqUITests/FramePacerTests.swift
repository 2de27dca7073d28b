import PodqServer
import XCTest

@testable import PodqUI

/// The TUI loop's pacing, run against a simulated clock: the loop waits as ``FramePacer/wait(now:moving:changed:)``
/// says (a key ends the wait early), takes what changed meanwhile, and draws when
/// ``FramePacer/frameDue(now:moving:changed:key:)`` says.
final class FramePacerTests: XCTestCase {
    /// What a simulated run did: when frames were drawn, how often the loop woke, and each key's frame
    /// latency.
    struct Run {
        var frames: [Double] = []
        var wakes = 0
        var keyLatencies: [Double] = []
    }

    /// Runs the loop for `seconds`: `moving(t)` says whether downloads run at `t`; `changes` are the
    /// times bytes or messages arrive (the view model marked dirty); `keys` the times keys are typed.
    func simulate(seconds: Double, moving: (Double) -> Bool, changes: [Double] = [], keys: [Double] = []) -> Run {
        var pacer = FramePacer()
        var run = Run()
        var now = 100.0  // any start: the clock is monotonic, not zero-based
        let end = now + seconds
        let changes = changes.map { $0 + now }.sorted(), keys = keys.map { $0 + now }.sorted()
        var nextChange = 0, nextKey = 0
        var changed = true
        while now < end {
            let wait = pacer.wait(now: now, moving: moving(now - 100), changed: changed)
            XCTAssertGreaterThanOrEqual(wait, 0)
            var woke = now + Double(wait) / 1000
            var key: Double?
            if nextKey < keys.count, keys[nextKey] <= woke {
                key = keys[nextKey]
                woke = max(now, keys[nextKey])
                nextKey += 1
            }
            now = woke
            run.wakes += 1
            while nextChange < changes.count, changes[nextChange] <= now {
                changed = true
                nextChange += 1
            }
            if pacer.frameDue(now: now, moving: moving(now - 100), changed: changed || key != nil, key: key != nil) {
                run.frames.append(now - 100)
                if let key { run.keyLatencies.append(now - key) }
                changed = false
            }
        }
        return run
    }

    func testTheFirstFrameIsDrawnAtOnce() {
        let run = simulate(seconds: 0.01, moving: { _ in false })
        XCTAssertEqual(run.frames.first, 0)
    }

    /// Downloads running over a bursty link: bytes come in bursts with pauses of up to 400 ms, and the
    /// frames still come every 85 ms, with the loop awake for them only.
    func testWhileSomethingMovesFramesComeOnASteadyCadenceWhateverTheBytesDo() {
        for seed in 1...20 {
            var random = SeededGenerator(seed: UInt64(seed))
            var changes: [Double] = []
            var t = 0.0
            while t < 10 {
                t += Double(random.next() % 400) / 1000
                for _ in 0..<Int(random.next() % 5) { changes.append(t + Double(random.next() % 10) / 1000) }
            }
            let run = simulate(seconds: 10, moving: { _ in true }, changes: changes)
            let gaps = zip(run.frames, run.frames.dropFirst()).map { $1 - $0 }
            XCTAssertEqual(gaps.max() ?? 0, FramePacer.interval, accuracy: 0.0011, "seed \(seed)")
            XCTAssertEqual(gaps.min() ?? 0, FramePacer.interval, accuracy: 0.0011, "seed \(seed)")
            // One wake-up per frame (about 12 a second), not one per millisecond.
            XCTAssertEqual(run.wakes, run.frames.count, "seed \(seed)")
            XCTAssertLessThanOrEqual(Double(run.wakes) / 10, 1 / FramePacer.interval + 1)
        }
    }

    /// Keys typed at random while downloads run: each key's frame at once, no gap between frames over
    /// the interval, and the loop wakes for keys and deadlines only.
    func testKeysAreAnsweredAtOnceAndTheCadenceHolds() {
        for seed in 1...20 {
            var random = SeededGenerator(seed: UInt64(seed) * 7919)
            var keys: [Double] = []
            var t = 0.0
            while t < 10 {
                t += Double(random.next() % 300 + 1) / 1000
                keys.append(t)
            }
            let run = simulate(seconds: 10, moving: { _ in true }, keys: keys)
            XCTAssertGreaterThanOrEqual(run.keyLatencies.count, keys.filter { $0 < 9.9 }.count, "seed \(seed)")
            XCTAssertEqual(run.keyLatencies.max() ?? 1, 0, accuracy: 1e-9, "seed \(seed)")
            let gaps = zip(run.frames, run.frames.dropFirst()).map { $1 - $0 }
            XCTAssertLessThanOrEqual(gaps.max() ?? 1, FramePacer.interval + 0.0011, "seed \(seed)")
            XCTAssertLessThanOrEqual(run.wakes, run.frames.count, "seed \(seed)")
        }
    }

    /// Nothing moving and nothing changed: no frame after the first, and the loop wakes every 50 ms,
    /// then every 500 ms once nothing happened for 2 s.
    func testIdleTheLoopWakesRarelyAndDrawsNothing() {
        let run = simulate(seconds: 12, moving: { _ in false })
        XCTAssertEqual(run.frames, [0])
        // 2 s at 50 ms, then 10 s at 500 ms.
        XCTAssertEqual(Double(run.wakes), 2 / 0.05 + 10 / 0.5, accuracy: 3)
    }

    /// A message or the library arriving while nothing moves is drawn at the next deadline, not a
    /// second late.
    func testAChangeWhileNothingMovesIsDrawnWithinAnInterval() {
        let changes = [0.5, 3.7, 3.71, 9.05]
        let run = simulate(seconds: 10, moving: { _ in false }, changes: changes)
        for change in changes {
            let drawn = run.frames.first { $0 >= change }
            XCTAssertNotNil(drawn)
            XCTAssertLessThanOrEqual((drawn ?? 99) - change, FramePacer.interval + Double(FramePacer.idleWait) / 1000)
        }
        XCTAssertEqual(run.frames.count, 1 + 3)  // 3.7 and 3.71 in one frame
    }

    /// Downloads that start after a long idle get a frame at once, then the cadence.
    func testMovingAfterIdleStartsTheCadenceAtOnce() {
        let run = simulate(seconds: 6, moving: { $0 >= 4 }, changes: [4.0])
        let moving = run.frames.filter { $0 >= 4 }
        XCTAssertLessThanOrEqual((moving.first ?? 99) - 4, Double(FramePacer.idleWait) / 1000 + 0.001)
        let gaps = zip(moving, moving.dropFirst()).map { $1 - $0 }
        XCTAssertEqual(gaps.max() ?? 0, FramePacer.interval, accuracy: 0.0011)
    }

    /// A loop that fell behind (a long frame, a stop in a debugger) starts a new schedule instead of
    /// drawing the frames it missed one after another.
    func testALateLoopDoesNotCatchUpFrameByFrame() {
        var pacer = FramePacer()
        XCTAssertTrue(pacer.frameDue(now: 0, moving: true, changed: true, key: false))
        XCTAssertTrue(pacer.frameDue(now: 1, moving: true, changed: false, key: false))
        XCTAssertFalse(pacer.frameDue(now: 1.001, moving: true, changed: false, key: false))
        XCTAssertTrue((84...85).contains(pacer.wait(now: 1.001, moving: true, changed: false)))
    }

    func testTheAnimationStepsEvery200msWhateverTheFrameRate() {
        XCTAssertEqual(FramePacer.tick(at: 0.199), 0)
        XCTAssertEqual(FramePacer.tick(at: 0.2), 1)
        XCTAssertEqual(FramePacer.tick(at: 10.05), 50)
    }
}
