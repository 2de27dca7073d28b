/// Whole numbers from floating-point ones that may come from outside (a player's position, a feed's
/// date, a server's number, a measured speed): `Int(x)` traps on NaN, infinities and anything past
/// ±9.2e18, and a trap loses what the command was doing (issue 43: `podq play` died on mpv's `1e300`).
/// These never trap: NaN is `nan` (0 unless said), and a value past a bound is that bound.
extension Int {
    /// `value` rounded by `rule`, then held within `range`; `nan` (held within `range` too) for NaN.
    public static func clamped(
        _ value: Double, _ rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero, in range: ClosedRange<Int> = .min ... .max, nan: Int = 0
    ) -> Int {
        guard !value.isNaN else { return Swift.min(Swift.max(nan, range.lowerBound), range.upperBound) }
        let rounded = value.rounded(rule)
        // Double(Int.max) is 2^63, one past it: `>=` sends it, and all above, to the bound.
        if rounded >= Double(range.upperBound) { return range.upperBound }
        if rounded <= Double(range.lowerBound) { return range.lowerBound }
        return Swift.min(Swift.max(Int(rounded), range.lowerBound), range.upperBound)
    }
}

extension Int64 {
    /// ``Swift/Int/clamped(_:_:in:nan:)`` for 64-bit counts (bytes, seconds since 1970).
    public static func clamped(
        _ value: Double, _ rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero, in range: ClosedRange<Int64> = .min ... .max, nan: Int64 = 0
    ) -> Int64 {
        Int64(Int.clamped(value, rule, in: Int(range.lowerBound)...Int(range.upperBound), nan: Int(nan)))
    }
}
