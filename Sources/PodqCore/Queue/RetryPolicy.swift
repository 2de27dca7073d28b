/// Exponential backoff with jitter: `base · 2^(attempt−1)`, capped at `max`, scaled by a random
/// factor between 0.5 and 1.5 so many clients do not retry in step. A server's `Retry-After` wins
/// (capped at one hour).
public struct RetryPolicy: Sendable {
    public var base: Double
    public var max: Double

    public init(base: Double, max: Double) {
        self.base = base
        self.max = max
    }

    /// Seconds to wait after attempt number `attempt` (1 for the first) failed.
    public func delay(
        afterAttempt attempt: Int, retryAfter: Double? = nil,
        jitter: Double = Double.random(in: 0.5...1.5)
    ) -> Double {
        if let retryAfter { return Swift.min(3600, Swift.max(0, retryAfter)) }
        let exponential = base * Double(1 << Swift.min(30, Swift.max(0, attempt - 1)))
        return Swift.min(max, exponential) * jitter
    }
}
