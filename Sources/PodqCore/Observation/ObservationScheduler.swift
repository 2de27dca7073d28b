import Dispatch
import Synchronization

/// The clock and timer behind coalesced notifications, injectable so tests can drive time by hand.
public protocol ObservationScheduler: Sendable {
    /// Monotonic time in nanoseconds.
    func now() -> UInt64
    /// Runs `work` once, after `nanoseconds`, on any thread.
    func schedule(afterNanoseconds nanoseconds: UInt64, _ work: @escaping @Sendable () -> Void)
}

/// The live scheduler: the monotonic clock, and one dispatch timer per tick of a shared grid.
///
/// Every download's ``ObservationCenter`` asks for a trailing delivery 20 times a second. One
/// dispatch timer each was 1,000 timers a second for 50 downloads, each arming the timer thread and
/// waking a worker (a `timerfd_settime`, an `epoll_ctl` and a `futex` apiece). Work is run at the
/// next tick of a 10 ms grid at or after its time instead, all of a tick's work by one timer: at most
/// 100 timers a second however many downloads run, and a delivery never more than 10 ms late.
public struct DispatchObservationScheduler: ObservationScheduler {
    /// The grid, in nanoseconds.
    static let tick: UInt64 = 10_000_000

    public init() {}

    public func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    public func schedule(afterNanoseconds nanoseconds: UInt64, _ work: @escaping @Sendable () -> Void) {
        Self.ticks.add(work, due: now() &+ nanoseconds)
    }

    private static let ticks = TickBatches()
}

/// The work waiting for each tick, keyed by the tick's time.
private final class TickBatches: Sendable {
    private let batches = Mutex<[UInt64: [@Sendable () -> Void]]>([:])

    func add(_ work: @escaping @Sendable () -> Void, due: UInt64) {
        let tick = DispatchObservationScheduler.tick
        let slot = (due / tick + (due % tick == 0 ? 0 : 1)) * tick
        let first = batches.withLock { batches -> Bool in
            if batches[slot] != nil {
                batches[slot]!.append(work)
                return false
            }
            batches[slot] = [work]
            return true
        }
        guard first else { return }
        DispatchQueue.global().asyncAfter(deadline: DispatchTime(uptimeNanoseconds: slot)) {
            let works = self.batches.withLock { $0.removeValue(forKey: slot) } ?? []
            for work in works { work() }
        }
    }
}
