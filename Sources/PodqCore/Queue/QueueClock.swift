import FoundationEssentials
import Glibc

/// The time the queue runner plans by: Unix time in seconds (what the store's retry times are written
/// in) and its waits (the tick, a retry coming due). A test gives its own and moves it by hand, so a
/// retry an hour away is tested without waiting an hour (`ManualTime` in the test support).
public protocol QueueClock: Sendable {
    /// Unix time, in seconds.
    var now: Double { get }
    /// Returns once `seconds` of this clock have passed; throws `CancellationError` when the task is
    /// cancelled first.
    func sleep(seconds: Double) async throws
}

/// The machine's clock.
public struct SystemQueueClock: QueueClock {
    public init() {}
    public var now: Double { Date().timeIntervalSince1970 }
    public func sleep(seconds: Double) async throws {
        try await Task.sleep(for: .milliseconds(Int(min(max(0, seconds), 86_400) * 1000)))
    }
}
