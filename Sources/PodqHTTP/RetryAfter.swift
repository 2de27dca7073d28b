import FoundationEssentials
import Glibc
import PodqBase

/// RFC 9110's `Retry-After`.
public enum RetryAfter {
    /// `Retry-After` as seconds: digits (RFC 9110's delay-seconds; `inf`, `1e9` or `-3` are not) or an
    /// HTTP date, read by the feed's date parser (no `DateFormatter`: corelibs leaks one a call, found
    /// by the FuzzHeaders target). At most a year.
    public static func seconds(_ value: String) -> Double? {
        let trimmed = value.trimmingASCIIWhitespace
        let year = 365.0 * 86_400
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return trimmed.utf8.count > 9 ? year : min(Double(trimmed) ?? year, year)
        }
        guard let date = FeedDate.parse(trimmed) else { return nil }
        return min(max(0, date.timeIntervalSinceNow), year)
    }
}
