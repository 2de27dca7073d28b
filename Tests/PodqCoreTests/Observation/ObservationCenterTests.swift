import PodqCore
import PodqTestSupport
import Synchronization
import XCTest

/// A tiny observable object for the registry's own tests.
private final class Counter: KeyValueObservable, @unchecked Sendable {
    let observationCenter: ObservationCenter
    private let lock = NSLock()
    private var _value = 0
    init(center: ObservationCenter) { observationCenter = center }
    var value: Int { lock.withLock { _value } }
    func set(_ v: Int) {
        lock.withLock { _value = v }
        observationCenter.valueDidChange()
    }
}

final class ObservationCenterTests: XCTestCase {
    func testInitialAndNewValuesAreDelivered() {
        let clock = ManualScheduler()
        let counter = Counter(center: ObservationCenter(scheduler: clock))
        counter.set(5)
        let seen = Recorder<Int>()
        let token = counter.observe(\.value, options: [.initial, .new]) { _, change in seen.append(change.newValue!) }
        XCTAssertEqual(seen.values, [5])
        clock.advance(byMilliseconds: 0)  // the delivery set(5) asked for: nothing new to say
        clock.advance(byMilliseconds: 100)
        XCTAssertEqual(seen.values, [5])
        counter.set(6)
        XCTAssertEqual(seen.values, [5], "never on the writer's thread (a chunk's write on an event loop)")
        clock.advance(byMilliseconds: 0)
        XCTAssertEqual(seen.values, [5, 6], "a change after a quiet interval is delivered at the scheduler's next turn")
        token.cancel()
    }

    func testChangesAreCoalescedAndTheLastValueIsDelivered() {
        let clock = ManualScheduler()
        let counter = Counter(center: ObservationCenter(interval: .milliseconds(50), scheduler: clock))
        let seen = Recorder<Int>()
        let token = counter.observe(\.value, options: [.new]) { _, change in seen.append(change.newValue!) }
        // 1,000 changes before the scheduler's turn: one delivery, of the last value.
        for i in 1...1000 { counter.set(i) }
        XCTAssertEqual(seen.values, [])
        XCTAssertEqual(clock.scheduledCount, 1, "one delivery, not one per change")
        clock.advance(byMilliseconds: 0)
        XCTAssertEqual(seen.values, [1000])
        // Changes within the interval after it wait for one trailing delivery.
        counter.set(1001)
        counter.set(1002)
        clock.advance(byMilliseconds: 49)
        XCTAssertEqual(seen.values, [1000])
        clock.advance(byMilliseconds: 1)
        XCTAssertEqual(seen.values, [1000, 1002])
        // Over one simulated second of changes every millisecond: at most ~20 deliveries.
        for step in 0..<1000 {
            counter.set(2000 + step)
            clock.advance(byMilliseconds: 1)
        }
        clock.advance(byMilliseconds: 50)
        let deliveries = seen.values.count - 2
        XCTAssertLessThanOrEqual(deliveries, 21)
        XCTAssertGreaterThanOrEqual(deliveries, 19)
        XCTAssertEqual(seen.values.last, 2999)
        token.cancel()
    }

    func testFlushDeliversAtOnceWhateverTheInterval() {
        let clock = ManualScheduler()
        let counter = Counter(center: ObservationCenter(interval: .seconds(10), scheduler: clock))
        let seen = Recorder<Int>()
        let token = counter.observe(\.value, options: [.old, .new]) { _, change in seen.append(change.newValue! * 100 + (change.oldValue ?? 0)) }
        counter.set(1)
        counter.set(2)
        counter.observationCenter.flush()
        XCTAssertEqual(seen.values, [200], "the value now, at once, without waiting for the scheduler")
        counter.observationCenter.flush()
        clock.advance(byMilliseconds: 10_000)
        XCTAssertEqual(seen.values.count, 1, "an unchanged value is not delivered again")
        token.cancel()
    }

    func testCancellingOrReleasingTheTokenEndsTheObservation() {
        let clock = ManualScheduler()
        let counter = Counter(center: ObservationCenter(interval: .zero, scheduler: clock))
        let seen = Recorder<Int>()
        var token: ObservationToken? = counter.observe(\.value) { _, change in seen.append(change.newValue!) }
        XCTAssertEqual(counter.observationCenter.count, 1)
        counter.set(1)
        clock.advance(byMilliseconds: 0)
        token = nil
        XCTAssertEqual(counter.observationCenter.count, 0)
        counter.set(2)
        clock.advance(byMilliseconds: 0)
        let second = counter.observe(\.value) { _, change in seen.append(change.newValue! * 10) }
        second.cancel()
        second.cancel()
        counter.set(3)
        clock.advance(byMilliseconds: 0)
        XCTAssertEqual(seen.values, [1])
        _ = token
    }

    func testConcurrentWritersAndObserversAreSafe() async {
        let counter = Counter(center: ObservationCenter(interval: .milliseconds(1)))
        let seen = Recorder<Int>()
        let token = counter.observe(\.value) { _, change in seen.append(change.newValue!) }
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<4 {
                group.addTask { for i in 0..<2000 { counter.set(t * 10_000 + i) } }
            }
        }
        counter.observationCenter.flush()
        XCTAssertEqual(seen.values.last, counter.value, "the final value is always delivered")
        token.cancel()
    }

    /// The token's promise, raced: a delivery runs on one thread while another thread cancels; once
    /// `cancel()` has returned, no handler call may start. (Entries were read before the delivery
    /// lock was taken, so a cancel in between was followed by a call.) Thousands of rounds, each on
    /// fresh threads.
    func testNoHandlerCallStartsAfterCancelReturnsWhateverTheRace() async {
        let late = Recorder<Int>()
        for round in 0..<3000 {
            let counter = Counter(center: ObservationCenter(interval: .zero))
            let cancelled = Flag()
            let token = counter.observe(\.value) { _, _ in
                if cancelled.isSet { late.append(round) }
            }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for i in 1...20 { counter.set(i) } }
                group.addTask {
                    token.cancel()
                    cancelled.set()
                }
            }
        }
        XCTAssertEqual(late.values, [], "rounds where a handler started after cancel() returned")
    }

    /// A handler that cancels another observer's token during a delivery: that observer is not called
    /// in the same delivery.
    func testAHandlerCancellingAnotherObserverStopsItAtOnce() {
        let clock = ManualScheduler()
        let counter = Counter(center: ObservationCenter(interval: .zero, scheduler: clock))
        let seen = Recorder<String>()
        let second = Recorder<ObservationToken>()
        let first = counter.observe(\.value) { _, change in
            seen.append("first \(change.newValue!)")
            if change.newValue == 2 { second.values.first?.cancel() }
        }
        second.append(counter.observe(\.value) { _, change in seen.append("second \(change.newValue!)") })
        for value in 1...3 {
            counter.set(value)
            clock.advance(byMilliseconds: 0)
        }
        XCTAssertEqual(seen.values, ["first 1", "second 1", "first 2", "first 3"])
        first.cancel()
    }
}

/// A flag set once, read from any thread.
private final class Flag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
