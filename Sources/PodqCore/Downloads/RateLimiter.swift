import Foundation
import Synchronization

/// The global speed limit (`rate-limit`, `--limit-rate`, `<`/`>` in the TUI), shared by every running
/// download: a schedule of when the next byte may arrive. Each chunk a download receives books its
/// bytes on the shared schedule, and the download reads its next chunk only when the schedule reaches
/// the end of its booking; downloads take turns at booking, so they share the limit about evenly.
/// Unlimited (nil) costs one lock and a nil check per chunk.
public final class RateLimiter: Sendable {
    private struct Schedule {
        var rate: Int?
        /// When (monotonic nanoseconds) the bytes booked so far have all been allowed through.
        var bookedUntil: UInt64 = 0
    }

    private let schedule: Mutex<Schedule>
    private let clock: @Sendable () -> UInt64

    /// - Parameter bytesPerSecond: the limit; nil for none.
    public init(bytesPerSecond: Int? = nil, clock: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }) {
        self.schedule = Mutex(Schedule(rate: bytesPerSecond.map { max(1, $0) }))
        self.clock = clock
    }

    /// The lowest limit `<` goes to: 10 KiB/s (a chunk then waits about 6 s, well inside the stall timeout).
    public static let slowest = 10 * 1024

    /// The limit in bytes a second; nil for none. Changing it applies to the next chunk of every download.
    public var bytesPerSecond: Int? {
        get { schedule.withLock { $0.rate } }
        set { schedule.withLock { $0.rate = newValue.map { max(1, $0) } } }
    }

    /// Books `bytes` just received; returns how many nanoseconds the download waits before it reads
    /// on (0 when there is no limit or the schedule has room).
    func delay(afterReceiving bytes: Int) -> UInt64 {
        schedule.withLock { schedule in
            guard let rate = schedule.rate else { return 0 }
            let now = clock()
            // No credit for idle time: a pause does not buy a burst afterwards.
            let start = max(schedule.bookedUntil, now)
            schedule.bookedUntil = start + UInt64(Double(bytes) / Double(rate) * 1e9)
            return schedule.bookedUntil > now ? schedule.bookedUntil - now : 0
        }
    }

    /// Reads a rate as curl and aria2 write it: bytes a second, or with `K` or `M` (1024 and 1024²);
    /// `0`, `none` or `off` mean no limit (nil). Below ``slowest`` is not valid (a 64 KiB read would
    /// wait longer than a stall timeout allows).
    public static func parse(_ text: String) -> (valid: Bool, bytesPerSecond: Int?) {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        if t == "0" || t == "none" || t == "off" || t == "unlimited" { return (true, nil) }
        var digits = Substring(t)
        var unit = 1
        if digits.hasSuffix("k") || digits.hasSuffix("m") {
            unit = digits.hasSuffix("k") ? 1024 : 1024 * 1024
            digits = digits.dropLast()
        }
        guard let n = Double(digits), n.isFinite, n * Double(unit) >= Double(slowest), n * Double(unit) < 1e12 else { return (false, nil) }
        return (true, Int(n * Double(unit)))
    }
}
