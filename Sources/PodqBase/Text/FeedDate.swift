import FoundationEssentials
import Glibc

/// Dates as feeds write them: RFC 822 with its common variants (no weekday, one-digit days, two-digit
/// years, full month names, no seconds, named US zones, no zone) and ISO 8601 (with or without time,
/// fractions and offsets). Parsed by hand: fast, and independent of the locale.
public enum FeedDate {
    /// The date `text` stands for, or nil.
    public static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingASCIIWhitespace
        guard let first = trimmed.first else { return nil }
        if first.isNumber, trimmed.count >= 10, Array(trimmed.utf8)[4] == UInt8(ascii: "-") {
            return iso8601(trimmed)
        }
        return rfc822(trimmed)
    }

    static func rfc822(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { rfc822(bytes: $0) }
    }

    /// RFC 822 on the UTF-8 bytes: tokens split at spaces, commas and tabs, each read by its shape
    /// (zone, time, month, number). No String is made per token.
    static func rfc822(bytes b: UnsafeBufferPointer<UInt8>) -> Date? {
        var day: Int?, month: Int?, year: Int?
        var hour = 0, minute = 0, second = 0
        var offset = 0
        var i = 0
        func isSeparator(_ c: UInt8) -> Bool { c == 0x20 || c == 0x2C || c == 0x09 }
        while i < b.count {
            while i < b.count, isSeparator(b[i]) { i += 1 }
            let start = i
            while i < b.count, !isSeparator(b[i]) { i += 1 }
            guard start < i else { break }
            let token = UnsafeBufferPointer(rebasing: b[start..<i])
            if token[0] == UInt8(ascii: "+") || token[0] == UInt8(ascii: "-") {
                guard let z = zoneOffset(bytes: token) else { return nil }
                offset = z
            } else if token.contains(UInt8(ascii: ":")) {
                let parts = token.split(separator: UInt8(ascii: ":")).map { number(UnsafeBufferPointer(rebasing: $0)) }
                guard parts.count >= 2, let h = parts[0], let m = parts[1] else { return nil }
                hour = h
                minute = m
                second = parts.count > 2 ? (parts[2] ?? 0) : 0
            } else if let m = monthNumber(bytes: token) {
                month = m
            } else if let n = number(token) {
                if token.count == 4 {
                    year = n
                } else if token.count <= 2 && day == nil {
                    day = n
                } else if token.count == 2 && year == nil {
                    year = n < 70 ? 2000 + n : 1900 + n  // two-digit years
                }
            } else if let z = zoneOffset(bytes: token) {
                offset = z
            }
        }
        guard let day, let month, let year, (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        return make(year: year, month: month, day: day, hour: hour, minute: minute, second: Double(second), offset: offset)
    }

    /// A run of 1…9 ASCII digits as a number; nil for anything else.
    private static func number(_ token: UnsafeBufferPointer<UInt8>) -> Int? {
        guard (1...9).contains(token.count) else { return nil }
        var n = 0
        for c in token {
            guard c >= 48 && c <= 57 else { return nil }
            n = n * 10 + Int(c - 48)
        }
        return n
    }

    static func iso8601(_ text: String) -> Date? {
        let b = Array(text.utf8)
        func num(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= b.count else { return nil }
            var n = 0
            for i in from..<from + count {
                guard b[i] >= 48 && b[i] <= 57 else { return nil }
                n = n * 10 + Int(b[i] - 48)
            }
            return n
        }
        guard let year = num(0, 4), let month = num(5, 2), let day = num(8, 2) else { return nil }
        var hour = 0, minute = 0
        var second = 0.0
        var i = 10
        if i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: " ") {
            guard let h = num(i + 1, 2), let m = num(i + 4, 2) else { return nil }
            hour = h
            minute = m
            i += 6
            if i < b.count, b[i] == UInt8(ascii: ":"), let s = num(i + 1, 2) {
                second = Double(s)
                i += 3
                if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
                    var j = i + 1
                    var scale = 0.1
                    while j < b.count, b[j] >= 48 && b[j] <= 57 {
                        second += Double(b[j] - 48) * scale
                        scale /= 10
                        j += 1
                    }
                    i = j
                }
            }
        }
        var offset = 0
        if i < b.count {
            let rest = String(decoding: b[i...], as: UTF8.self).trimmingASCIIWhitespace
            guard let z = zoneOffset(rest) else { return nil }
            offset = z
        }
        return make(year: year, month: month, day: day, hour: hour, minute: minute, second: second, offset: offset)
    }

    /// Seconds east of UTC for `+0100`, `-05:00`, `GMT`, `Z`, `EST`…; nil when not a zone.
    static func zoneOffset(_ token: String) -> Int? {
        var token = token
        return token.withUTF8 { zoneOffset(bytes: $0) }
    }

    static func zoneOffset(bytes b: UnsafeBufferPointer<UInt8>) -> Int? {
        if b.count <= 4, b.count >= 1, b[0] != UInt8(ascii: "+"), b[0] != UInt8(ascii: "-") {
            var name = 0
            for c in b { name = name << 8 | Int(c >= 97 && c <= 122 ? c - 32 : c) }
            func code(_ s: StaticString) -> Int { s.withUTF8Buffer { $0.reduce(0) { $0 << 8 | Int($1) } } }
            switch name {
            case code("GMT"), code("UT"), code("UTC"), code("Z"): return 0
            case code("EST"): return -5 * 3600
            case code("EDT"): return -4 * 3600
            case code("CST"): return -6 * 3600
            case code("CDT"): return -5 * 3600
            case code("MST"): return -7 * 3600
            case code("MDT"): return -6 * 3600
            case code("PST"): return -8 * 3600
            case code("PDT"): return -7 * 3600
            case code("BST"): return 3600
            case code("CET"): return 3600
            case code("CEST"): return 7200
            default: return nil
            }
        }
        guard b.count >= 3, b[0] == UInt8(ascii: "+") || b[0] == UInt8(ascii: "-") else { return nil }
        let digits = b.dropFirst().filter { $0 != UInt8(ascii: ":") }
        guard digits.count == 4 || digits.count == 2, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        let v = digits.map { Int($0 - 48) }
        let hours = v[0] * 10 + v[1]
        let minutes = digits.count == 4 ? v[2] * 10 + v[3] : 0
        return (b[0] == UInt8(ascii: "-") ? -1 : 1) * (hours * 3600 + minutes * 60)
    }

    static func monthNumber(bytes b: UnsafeBufferPointer<UInt8>) -> Int? {
        guard b.count >= 3 else { return nil }
        func lower(_ c: UInt8) -> Int { Int(c >= 65 && c <= 90 ? c + 32 : c) }
        let key = lower(b[0]) << 16 | lower(b[1]) << 8 | lower(b[2])
        func code(_ s: StaticString) -> Int { s.withUTF8Buffer { $0.reduce(0) { $0 << 8 | Int($1) } } }
        switch key {
        case code("jan"): return 1
        case code("feb"): return 2
        case code("mar"): return 3
        case code("apr"): return 4
        case code("may"): return 5
        case code("jun"): return 6
        case code("jul"): return 7
        case code("aug"): return 8
        case code("sep"): return 9
        case code("oct"): return 10
        case code("nov"): return 11
        case code("dec"): return 12
        default: return nil
        }
    }

    static func make(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Double, offset: Int) -> Date? {
        guard (1...12).contains(month), (1...31).contains(day), (1...9999).contains(year) else { return nil }
        // Days from the civil date (Howard Hinnant's algorithm): no Calendar, no locale.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 - offset) + second
        return Date(timeIntervalSince1970: seconds)
    }

    /// `YYYY-MM-DD` in UTC, for file names and listings.
    public static func day(_ date: Date) -> String {
        // Held within years -9999…9999: a date from outside (1e300 s) never traps.
        let (y, m, d) = civil(Int.clamped(date.timeIntervalSince1970 / 86_400, .down, in: -4_371_587...2_932_896))
        // By hand: `String(format:)` was a sixth of `podq episodes` over 100,000 episodes.
        func digits(_ n: Int, _ width: Int) -> String {
            let text = String(abs(n))
            return (n < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return digits(y, 4) + "-" + digits(m, 2) + "-" + digits(d, 2)
    }

    /// The civil date of a day counted from 1970-01-01 (Howard Hinnant's algorithm).
    package static func civil(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// Days from 1970-01-01 to a civil date (the inverse of ``civil(_:)``).
    package static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// A duration as feeds write it: seconds (`3723`), `MM:SS`, `HH:MM:SS` (also `1:02:03.5`); nil when unreadable.
    public static func duration(_ text: String) -> Int? {
        plainDuration(text) ?? generalDuration(text)
    }

    /// Any form ``duration(_:)`` takes: parts trimmed, decimals ("62.5", "1:02.5").
    package static func generalDuration(_ text: String) -> Int? {
        let parts = text.trimmingASCIIWhitespace.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for part in parts {
            guard let v = Double(String(part).trimmingASCIIWhitespace), v >= 0, v.isFinite else { return nil }
            total = total * 60 + v
        }
        return total < 1e9 ? Int(total.rounded()) : nil
    }

    /// The common form, read from the bytes without a String or a Double: "01:02:03", "62:03",
    /// "3723" (digits only, up to three parts); nil for anything else, which ``duration(_:)`` reads
    /// the general way.
    @_optimize(speed)
    package static func plainDuration(_ text: String) -> Int? {
        var total = 0
        var part = 0
        var digits = 0
        var parts = 1
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits += 1
                if digits > 9 { return nil }
                part = part * 10 + Int(b &- UInt8(ascii: "0"))
            case UInt8(ascii: ":"):
                guard digits > 0, parts < 3 else { return nil }
                total = total * 60 + part
                part = 0
                digits = 0
                parts += 1
            default:
                return nil
            }
        }
        guard digits > 0 else { return nil }
        total = total * 60 + part
        return total < 1_000_000_000 ? total : nil
    }
}
