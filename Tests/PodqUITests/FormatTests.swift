import PodqUI
import XCTest

final class FormatTests: XCTestCase {
    func testHumanUnits() {
        XCTAssertEqual(Format.bytes(999), "999 B")
        XCTAssertEqual(Format.bytes(1_500), "1.5 KB")
        XCTAssertEqual(Format.bytes(12_345_678), "12.3 MB")
        XCTAssertEqual(Format.bytes(1_020_000_000), "1.02 GB")
        XCTAssertEqual(Format.speed(0), "-")
        XCTAssertEqual(Format.speed(2_500_000), "2.5 MB/s")
        XCTAssertEqual(Format.eta(nil), "-")
        XCTAssertEqual(Format.eta(41.2), "42s")
        XCTAssertEqual(Format.eta(185), "3m05s")
        XCTAssertEqual(Format.eta(3720), "1h02m")
        XCTAssertEqual(Format.eta(1e9), ">99h")
        XCTAssertEqual(Format.percent(0.07), "  7%")
        XCTAssertEqual(Format.percent(1), "100%")
        XCTAssertEqual(Format.percent(nil), "  ?%")
        XCTAssertEqual(Format.amount(received: 1000, expected: nil), "1.0 KB / ?")
    }
}

/// The TUI's numbers (an ETA, a percentage, a bar, a sparkline, a speed) from any double: none traps
/// (issue 43, point 6), each within its cells.
final class FormatExtremesTests: XCTestCase {
    func testEveryExtremeDoubleIsDrawnWithoutATrap() {
        let extremes: [Double] = [.nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e300, -1e300, 1e19, 9.3e18, -0.0, 0.5]
        for value in extremes {
            _ = Format.eta(value)
            XCTAssertLessThanOrEqual(Format.percent(value).count, 5, "\(value)")
            let bar = ProgressBar.cells(fraction: value, width: 10)
            XCTAssertLessThanOrEqual(bar.filled.count + bar.empty.count, 11, "\(value)")
            XCTAssertEqual(ProgressBar.cells(spans: [0...1, value.isNaN ? 0...0 : min(0, value)...max(0, value)], width: 4).count, 4)
            XCTAssertLessThanOrEqual(SpeedHistory.sparkline([value, 1, 0, value], width: 4).count, 4)
        }
    }
}
