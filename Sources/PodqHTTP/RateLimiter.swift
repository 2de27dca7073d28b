import Dispatch
import FoundationEssentials
import Glibc
import PodqBase
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

    /// The lowest limit there is, and `<` goes to: 10 KB/s (an 8 KB read then waits under a second).
    public static let slowest = 10_000

    /// The highest limit `>` goes to; once more lifts the limit (doubling from 1 MB/s took ten presses
    /// to reach "no limit" before).
    public static let fastest = 16_000_000

    /// `>`: twice `current`, or nil (no limit) past ``fastest``.
    public static func faster(than current: Int) -> Int? {
        current * 2 > fastest ? nil : current * 2
    }

    /// `<`: half `current`, or, with no limit, half of `speed` (what the downloads reach now); never
    /// below ``slowest``.
    public static func slower(than current: Int?, speed: Double) -> Int {
        let base = current ?? max(Int(min(speed, 1e12)), slowest * 2)
        return max(slowest, base / 2)
    }

    /// A rate as the config writes it: `2M`, `500K`, or bytes.
    public static func written(_ rate: Int) -> String {
        rate % 1_000_000 == 0 ? "\(rate / 1_000_000)M" : rate % 1000 == 0 ? "\(rate / 1000)K" : String(rate)
    }

    /// The limit in bytes a second; nil for none. Changing it applies to the next chunk of every download.
    public var bytesPerSecond: Int? {
        get { schedule.withLock { $0.rate } }
        set { schedule.withLock { $0.rate = newValue.map { max(1, $0) } } }
    }

    /// Books `bytes` just received; returns how many nanoseconds the download waits before it reads
    /// on (0 when there is no limit or the schedule has room).
    package func delay(afterReceiving bytes: Int) -> UInt64 {
        schedule.withLock { schedule in
            guard let rate = schedule.rate else { return 0 }
            let now = clock()
            // No credit for idle time: a pause does not buy a burst afterwards.
            let start = max(schedule.bookedUntil, now)
            schedule.bookedUntil = start + UInt64(Double(bytes) / Double(rate) * 1e9)
            return schedule.bookedUntil > now ? schedule.bookedUntil - now : 0
        }
    }

    /// The most a paced connection reads at once: about a quarter second of the limit, a power of two of
    /// at least 8 KiB, and at most `largest` (the connection's share of the read budget). A read books its
    /// bytes before the next one may start, so a 256 KiB read at 10 KiB/s held every download that
    /// shares the limit 25 s (the second's first byte came after the first's turn); short reads keep the
    /// turns short and the downloads' progress even. With no limit now: `largest`.
    package func readSize(atMost largest: Int) -> Int {
        guard let rate = bytesPerSecond else { return largest }
        var size = 8 << 10
        while size * 2 <= rate / 4 && size * 2 <= largest { size *= 2 }
        return min(size, largest)
    }

    /// Reads a rate: bytes a second, or with `K` or `M` (1000 and 1000², the units podq shows speeds in:
    /// `2M` is the "2.0 MB/s" the TUI says), `KB`/`MB` the same, `KiB`/`MiB` 1024 and 1024²; `0`, `none`
    /// or `off` mean no limit (nil). Below ``slowest`` is not valid.
    public static func parse(_ text: String) -> (valid: Bool, bytesPerSecond: Int?) {
        var t = text.trimmingSpaces.lowercased()
        if t == "0" || t == "none" || t == "off" || t == "unlimited" { return (true, nil) }
        if t.hasSuffix("/s") { t.removeLast(2) }
        var digits = Substring(t)
        var unit = 1
        for (suffix, size) in [("kib", 1024), ("mib", 1024 * 1024), ("kb", 1000), ("mb", 1_000_000), ("k", 1000), ("m", 1_000_000), ("b", 1)]
        where digits.hasSuffix(suffix) {
            unit = size
            digits = digits.dropLast(suffix.count)
            break
        }
        guard let n = Double(digits), n.isFinite, n * Double(unit) >= Double(slowest), n * Double(unit) < 1e12 else { return (false, nil) }
        return (true, Int(n * Double(unit)))
    }
}
