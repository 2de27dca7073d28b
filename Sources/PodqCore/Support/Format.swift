import FoundationEssentials
import Glibc
import PodqBase

/// Human units for the table and the progress lines.
public enum Format {
    /// `512 B`, `1.5 KB`, `12.3 MB`, `1.02 GB` (decimal units, as download tools show them).
    public static func bytes(_ count: Int64) -> String {
        let value = Double(count)
        switch count {
        case ..<1000: return "\(count) B"
        case ..<1_000_000: return String(printf: "%.1f KB", value / 1e3)
        case ..<1_000_000_000: return String(printf: "%.1f MB", value / 1e6)
        default: return String(printf: "%.2f GB", value / 1e9)
        }
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
        case ..<3600: return String(printf: "%ldm%02lds", s / 60, s % 60)
        case ..<(100 * 3600): return String(printf: "%ldh%02ldm", s / 3600, (s % 3600) / 60)
        default: return ">99h"
        }
    }

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
