import PodqCore

/// What one row of the downloads table shows: a value, taken from the view model at frame time.
public struct DownloadRow: Sendable, Equatable {
    public var id: Int
    /// Already free of control characters.
    public var title: String
    public var state: DownloadState
    /// 0…1 when the length is known.
    public var fraction: Double?
    public var received: Int64
    public var expected: Int64?
    /// Bytes a second, smoothed over a few seconds.
    public var speed: Double
    /// Seconds left at the current speed, when it can be told.
    public var eta: Double?
    /// The failure, for the message line.
    public var error: String?
    /// The feed's stated length, shown as an estimate while the server has not told the real one.
    public var estimate: Int64?
    /// A segmented download's written spans, as fractions of the file (the bar shows the holes).
    public var spans: [ClosedRange<Double>]?
    /// The connections a segmented download uses now (1 otherwise).
    public var connections: Int = 1
    /// Counted by the overall gauge: unfinished, or completed since the gauge began (it never goes back).
    public var inGauge = false

    public init(
        id: Int, title: String, state: DownloadState, fraction: Double?, received: Int64, expected: Int64?,
        speed: Double, eta: Double?, error: String? = nil, estimate: Int64? = nil
    ) {
        self.id = id
        self.title = title
        self.state = state
        self.fraction = fraction
        self.received = received
        self.expected = expected
        self.speed = speed
        self.eta = eta
        self.error = error
        self.estimate = estimate
    }
}
