import Foundation
import PodqBase
import XCTest

@testable import PodqCore

/// No number from outside may trap (issue 43, point 6): every Double → Int conversion that takes a
/// player's, a feed's, a server's or a directory's number goes through ``Swift/Int/clamped(_:_:in:nan:)``
/// or a check of its own. The property: for every extreme double, every rule and every range, the result
/// is within the range, and it is the exact conversion whenever that exists.
final class ClampedTests: XCTestCase {
    /// The doubles that break `Int(x)`, and their neighbours.
    static let extremes: [Double] = [
        .nan, -.nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e300, -1e300, 1e19, -1e19,
        Double(Int.max), Double(Int.max).nextDown, Double(Int.min), Double(Int.min).nextUp, Double(Int.min).nextDown,
        9.3e18, -9.3e18, 4_503_599_627_370_496.5, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, 0, -0.0, 0.5, -0.5, 1.5, 2.5,
        -2.5, 1e15, 253_402_300_800, 86_399.999, -1,
    ]
    static let rules: [FloatingPointRoundingRule] = [.toNearestOrAwayFromZero, .toNearestOrEven, .up, .down, .towardZero, .awayFromZero]
    static let ranges: [ClosedRange<Int>] = [.min ... .max, 0 ... .max, 0...0, -5...5, 1...8, 0...315_576_000, -4_371_587...2_932_896]

    func testEveryExtremeDoubleLandsInTheRangeAndExactValuesAreExact() {
        // Plus a random sample over the whole bit space of doubles.
        var generator = SystemRandomNumberGenerator()
        let random = (0..<5_000).map { _ in Double(bitPattern: generator.next()) }
        for value in Self.extremes + random {
            for rule in Self.rules {
                for range in Self.ranges {
                    let result = Int.clamped(value, rule, in: range)
                    XCTAssertTrue(range.contains(result), "\(value) \(rule) \(range) → \(result)")
                    let rounded = value.rounded(rule)
                    if let exact = Int(exactly: rounded), range.contains(exact) {
                        XCTAssertEqual(result, exact, "\(value) \(rule) \(range)")
                    } else if !value.isNaN {
                        XCTAssertTrue(result == range.lowerBound || result == range.upperBound, "\(value) \(rule) \(range) → \(result): a bound")
                    }
                    let long = Int64.clamped(value, rule, in: Int64(range.lowerBound)...Int64(range.upperBound))
                    XCTAssertEqual(long, Int64(result))
                }
            }
        }
        XCTAssertEqual(Int.clamped(.nan, in: 1...8), 1, "NaN is `nan` (0), held within the range")
        XCTAssertEqual(Int.clamped(.nan, nan: -1), -1)
    }

    /// The paths that take a number from outside, fed every extreme: none traps, each says something possible.
    func testThePathsThatTakeOutsideNumbersNeverTrap() {
        for value in Self.extremes {
            let day = FeedDate.day(Date(timeIntervalSince1970: value))
            XCTAssertTrue(day.count >= 10 && day.count <= 11, "\(value) → \(day)")
            let name = FileNameTemplate.date(value, "%Y-%m-%d %H:%M:%S %j")
            XCTAssertFalse(name.isEmpty, "\(value)")
            // A directory's date that cannot be a show's latest episode is none.
            let possible = Directory.possible(Date(timeIntervalSince1970: value))
            if let possible {
                XCTAssertTrue(possible.timeIntervalSince1970 > 0 && possible.timeIntervalSince1970 < Date().timeIntervalSince1970 + 400 * 86_400)
            }
        }
        XCTAssertNil(Directory.possible(Date(timeIntervalSince1970: 1e15)), "year 31,690,708 is none")
        XCTAssertEqual(FeedDate.day(Date(timeIntervalSince1970: 1e300)), "9999-12-31")
        XCTAssertEqual(FeedDate.day(Date(timeIntervalSince1970: 0)), "1970-01-01")
    }
}
