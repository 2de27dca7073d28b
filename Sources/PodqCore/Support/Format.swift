import FoundationEssentials
import Glibc
import PodqBase

/// Human units for the table and the progress lines.
public enum Format {
    /// `512 B`, `1.5 KB`, `12.3 MB`, `1.02 GB` (decimal units, as download tools show them).
    public static func bytes(_ count: Int64) -> String {
        switch count {
        case ..<1000: return "\(count) B"
        case ..<1_000_000: return fixed(count, unit: 1000, decimals: 1) + " KB"
        case ..<1_000_000_000: return fixed(count, unit: 1_000_000, decimals: 1) + " MB"
        default: return fixed(count, unit: 1_000_000_000, decimals: 2) + " GB"
        }
    }

    /// `count / unit` with `decimals` (1 or 2) decimals, as C's `printf("%.*f", decimals,
    /// Double(count) / Double(unit))` writes it, without `printf` (a frame formats a hundred amounts).
    ///
    /// A quotient that is not halfway between two results rounds to the nearer one, whichever side of
    /// it the `Double` falls. Halfway, `printf` rounds the `Double`: up when it lies above the true
    /// quotient, down when below, and to even when it is exact. The `fma` gives the `Double`'s error
    /// exactly (the remainder of a rounded division is representable).
    static func fixed(_ count: Int64, unit: Int64, decimals: Int) -> String {
        let scale: Int64 = decimals == 1 ? 10 : 100
        guard count >= 0, count < 1 << 52, unit % scale == 0 else {
            return String(printf: "%.*f", Int32(decimals), Double(count) / Double(unit))
        }
        let step = unit / scale
        var n = count / step
        let twice = (count % step) * 2
        if twice > step {
            n += 1
        } else if twice == step {
            let quotient = Double(count) / Double(unit)
            let residual = fma(quotient, Double(unit), -Double(count))
            if residual > 0 || (residual == 0 && n % 2 == 1) { n += 1 }
        }
        let whole = n / scale
        let fraction = n % scale
        let digits = String(fraction)
        return "\(whole)." + String(repeating: "0", count: decimals - digits.count) + digits
    }

    /// `1.2 MB/s`, or `-` when nothing moves.
    public static func speed(_ bytesPerSecond: Double) -> String {
        bytesPerSecond < 1 ? "-" : bytes(Int64(bytesPerSecond)) + "/s"
    }

    /// `42s`, `3m05s`, `1h02m`; `-` when unknown; `>99h` past that.
    public static func eta(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite, seconds >= 0 else { return "-" }
        let s = Int.clamped(seconds, .up, in: 0...(1 << 40))
        switch s {
        case ..<60: return "\(s)s"
        case ..<3600: return "\(s / 60)m" + twoDigits(s % 60) + "s"
        case ..<(100 * 3600): return "\(s / 3600)h" + twoDigits((s % 3600) / 60) + "m"
        default: return ">99h"
        }
    }

    /// `7` as `07`: `%02ld` for 0 through 99.
    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// `  7%`, `100%`, or `  ?%` when the length is unknown.
    public static func percent(_ fraction: Double?) -> String {
        guard let fraction else { return "  ?%" }
        let p = Int.clamped(fraction * 100, .down, in: -999...999)
        return String(repeating: " ", count: max(0, 3 - String(p).count)) + "\(p)%"
    }

    /// `12.3 MB / 45.6 MB`; `12.3 MB / ~45.6 MB` with only an estimate (the feed's stated length);
    /// `12.3 MB / ?` with neither.
    public static func amount(received: Int64, expected: Int64?, estimate: Int64? = nil) -> String {
        "\(bytes(received)) / \(expected.map(bytes) ?? estimate.map { "~" + bytes($0) } ?? "?")"
    }

    /// `2026-11-21` (UTC), or blank.
    public static func day(_ unixSeconds: Double?) -> String {
        unixSeconds.map { FeedDate.day(Date(timeIntervalSince1970: $0)) } ?? ""
    }

    /// `42:05` or `1:02:03`; blank when unknown.
    public static func duration(_ seconds: Int?) -> String {
        guard let s = seconds, s >= 0 else { return "" }
        return s >= 3600 ? String(printf: "%ld:%02ld:%02ld", s / 3600, (s % 3600) / 60, s % 60) : String(printf: "%ld:%02ld", s / 60, s % 60)
    }
}
