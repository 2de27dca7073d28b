/// The current speed of a transfer, smoothed over a sliding window (a few seconds), not the average
/// since the start: after a stall the speed falls to zero within the window.
public struct SpeedMeter: Sendable {
    /// The window, in seconds.
    public let window: Double
    private var samples: [(time: Double, bytes: Int64)] = []

    public init(window: Double = 3) { self.window = window }

    /// Records that `bytes` had arrived in all at `time` (seconds, monotonic). A smaller count than
    /// before (a restart from zero) starts the meter again.
    public mutating func record(bytes: Int64, at time: Double) {
        if let last = samples.last, bytes < last.bytes { samples.removeAll() }
        samples.append((time, bytes))
        let cutoff = time - window
        if let firstKept = samples.firstIndex(where: { $0.time >= cutoff }), firstKept > 1 {
            samples.removeFirst(firstKept - 1)
        }
    }

    /// Bytes a second over the window ending at `now`; 0 with less than two samples.
    public func rate(at now: Double) -> Double {
        guard let last = samples.last else { return 0 }
        let start = max(now - window, samples.first!.time)
        // Nothing arrived during the whole window: stalled.
        if start >= last.time { return 0 }
        // The bytes at `start`, interpolated between the samples around it.
        var bytesAtStart = samples.first!.bytes
        for (a, b) in zip(samples, samples.dropFirst()) where a.time <= start && start <= b.time {
            let span = b.time - a.time
            let f = span > 0 ? (start - a.time) / span : 1
            bytesAtStart = a.bytes + Int64.clamped(Double(b.bytes - a.bytes) * f, .towardZero)
        }
        let elapsed = now - start
        guard elapsed > 0.05 else { return 0 }
        return max(0, Double(last.bytes - bytesAtStart) / elapsed)
    }
}
