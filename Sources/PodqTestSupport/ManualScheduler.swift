import Foundation
import PodqCore
import Synchronization

/// An ``ObservationScheduler`` whose clock moves only when a test says so.
public final class ManualScheduler: ObservationScheduler, Sendable {
    private struct Clock {
        var time: UInt64 = 1_000_000_000
        var pending: [(due: UInt64, work: @Sendable () -> Void)] = []
    }

    private let clock = Mutex(Clock())

    public init() {}

    public func now() -> UInt64 { clock.withLock { $0.time } }

    public func schedule(afterNanoseconds nanoseconds: UInt64, _ work: @escaping @Sendable () -> Void) {
        clock.withLock { $0.pending.append(($0.time + nanoseconds, work)) }
    }

    /// The number of timers waiting.
    public var scheduledCount: Int { clock.withLock { $0.pending.count } }

    /// Moves the clock on and runs the timers that came due, in order.
    public func advance(byMilliseconds ms: UInt64) {
        let due: [@Sendable () -> Void] = clock.withLock { clock in
            clock.time += ms * 1_000_000
            let time = clock.time
            let ready = clock.pending.filter { $0.due <= time }.sorted { $0.due < $1.due }
            clock.pending.removeAll { $0.due <= time }
            return ready.map(\.work)
        }
        due.forEach { $0() }
    }
}

/// Records every value an observation delivers.
public final class Recorder<Value: Sendable>: Sendable {
    private let recorded = Mutex<[Value]>([])

    public init() {}

    public func append(_ value: Value) { recorded.withLock { $0.append(value) } }
    public var values: [Value] { recorded.withLock { $0 } }
}

extension DownloadOperation {
    /// Observes progress with `[.initial, .new]` into a recorder; keep the token alive.
    public func recordProgress() -> (Recorder<DownloadProgress>, ObservationToken) {
        let recorder = Recorder<DownloadProgress>()
        let token = observe(\.progress, options: [.initial, .new]) { _, change in
            if let value = change.newValue { recorder.append(value) }
        }
        return (recorder, token)
    }
}
