/// The speed of all downloads together over the last minute, a sample a second, for the status
/// line's sparkline (`▁▂▃▅▇`). The render loop records the speed with every frame; a second without
/// a frame had nothing running (frames come ten times a second while anything runs) and counts as 0.
public struct SpeedHistory: Sendable, Equatable {
    /// How many seconds are kept.
    public let capacity: Int
    /// Bytes a second, one per second, the oldest first.
    public private(set) var samples: [Double] = []
    private var second: Int?

    public init(capacity: Int = 60) { self.capacity = max(1, capacity) }

    /// Records `speed` at `time` (monotonic seconds): the last speed of each second is its sample.
    public mutating func record(_ speed: Double, at time: Double) {
        let now = Int.clamped(time, .down)
        if let second, now == second, !samples.isEmpty {
            samples[samples.count - 1] = speed
            return
        }
        if let second, now > second {
            samples.append(contentsOf: repeatElement(0, count: min(capacity, now - second - 1)))
        }
        samples.append(speed)
        if samples.count > capacity { samples.removeFirst(samples.count - capacity) }
        second = now
    }

    /// The last `width` samples as a sparkline: eight heights, the highest sample of them full;
    /// empty when nothing ran in them.
    public static func sparkline(_ samples: [Double], width: Int) -> String {
        let shown = samples.suffix(max(0, width))
        guard let peak = shown.max(), peak > 0 else { return "" }
        let levels: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
        return String(shown.map { levels[Int.clamped($0 / peak * 8, .up, in: 1...8) - 1] })
    }
}
