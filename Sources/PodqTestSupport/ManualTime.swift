import Synchronization

/// A clock a test moves by hand, in seconds (the TUI loop's, through ``TestScreen``).
public final class ManualTime: Sendable {
    private let seconds: Mutex<Double>

    public init(at start: Double = 1_000) { seconds = Mutex(start) }

    public var now: Double { seconds.withLock { $0 } }

    public func advance(by interval: Double) { seconds.withLock { $0 += interval } }
}
