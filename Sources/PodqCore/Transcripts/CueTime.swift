import FoundationEssentials

/// Times as transcripts write them and as podq prints them.
public enum CueTime {
    /// Seconds from `text`: `h:mm:ss.ttt` (any number of hours), `mm:ss.ttt`, SRT's comma
    /// (`00:01:02,500`), a time without a fraction (`1:02:03`, `0:00`) or plain seconds (`62.5`).
    /// Nil for anything else, a negative time, or minutes or seconds of 60 and more.
    public static func seconds(_ text: some StringProtocol) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        // Whole seconds and the fraction's digits as integers, divided once at the end: "29:36.553"
        // is the Double nearest 1776.553, as "1776.553" would be.
        var whole: Int64 = 0
        var fraction: Int64 = 0
        var scale: Int64 = 1
        func digits(_ text: Substring) -> Int64? {
            guard !text.isEmpty, text.utf8.count <= 12, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return Int64(text)
        }
        for (index, part) in parts.enumerated() {
            var integer = Substring(part)
            if index == parts.count - 1, let mark = part.firstIndex(where: { $0 == "." || $0 == "," }) {
                integer = Substring(part[..<mark])
                let decimals = part[part.index(after: mark)...].prefix(6)
                guard !decimals.isEmpty, let value = digits(Substring(decimals)), part[part.index(after: mark)...].dropFirst(6).allSatisfy(\.isWholeNumberDigit)
                else { return nil }
                fraction = value
                scale = Int64(pow10: decimals.count)
            }
            guard let value = digits(integer) else { return nil }
            if index > 0 && value >= 60 { return nil }
            whole = whole * 60 + value
            guard whole < 1 << 40 else { return nil }  // 35,000 years: not a time, and no overflow below
        }
        return (Double(whole * scale + fraction) / Double(scale))
    }

    /// `h:mm:ss` (whole seconds, rounded down): what `podq grep` prints and `--at` reads.
    public static func text(_ seconds: Double) -> String {
        let whole = seconds.isFinite ? max(0, Int(seconds.rounded(.down))) : 0
        let s = whole % 60, m = (whole / 60) % 60, h = whole / 3600
        return "\(h):" + (m < 10 ? "0" : "") + "\(m):" + (s < 10 ? "0" : "") + "\(s)"
    }
}

extension Int64 {
    fileprivate init(pow10 exponent: Int) {
        var value: Int64 = 1
        for _ in 0..<exponent { value *= 10 }
        self = value
    }
}

extension Character {
    fileprivate var isWholeNumberDigit: Bool { isASCII && isNumber }
}
