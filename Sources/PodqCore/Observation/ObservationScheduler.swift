import Dispatch

/// The clock and timer behind coalesced notifications, injectable so tests can drive time by hand.
public protocol ObservationScheduler: Sendable {
    /// Monotonic time in nanoseconds.
    func now() -> UInt64
    /// Runs `work` once, after `nanoseconds`, on any thread.
    func schedule(afterNanoseconds nanoseconds: UInt64, _ work: @escaping @Sendable () -> Void)
}

/// The live scheduler: the monotonic clock and a global dispatch queue.
public struct DispatchObservationScheduler: ObservationScheduler {
    public init() {}

    public func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    public func schedule(afterNanoseconds nanoseconds: UInt64, _ work: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds)), execute: work)
    }
}
