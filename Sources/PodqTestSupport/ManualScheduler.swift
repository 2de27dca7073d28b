import Foundation
import PodqCore

/// An ``ObservationScheduler`` whose clock moves only when a test says so.
public final class ManualScheduler: ObservationScheduler, @unchecked Sendable {
    private let lock = NSLock()
    private var time: UInt64 = 1_000_000_000
    private var pending: [(due: UInt64, work: @Sendable () -> Void)] = []

    public init() {}

    public func now() -> UInt64 { lock.withLock { time } }

    public func schedule(afterNanoseconds nanoseconds: UInt64, _ work: @escaping @Sendable () -> Void) {
        lock.withLock { pending.append((time + nanoseconds, work)) }
    }

    /// The number of timers waiting.
    public var scheduledCount: Int { lock.withLock { pending.count } }

    /// Moves the clock on and runs the timers that came due, in order.
    public func advance(byMilliseconds ms: UInt64) {
        let due: [@Sendable () -> Void] = lock.withLock {
            time += ms * 1_000_000
            let ready = pending.filter { $0.due <= time }.sorted { $0.due < $1.due }
            pending.removeAll { $0.due <= time }
            return ready.map(\.work)
        }
        due.forEach { $0() }
    }
}

/// Records every value an observation delivers.
public final class Recorder<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var _values: [Value] = []

    public init() {}

    public func append(_ value: Value) { lock.withLock { _values.append(value) } }
    public var values: [Value] { lock.withLock { _values } }
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
