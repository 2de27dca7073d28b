import PodqCore
import PodqUI
import XCTest

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
