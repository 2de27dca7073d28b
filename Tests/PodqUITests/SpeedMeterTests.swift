import PodqUI
import XCTest

final class SpeedMeterTests: XCTestCase {
    func testRateIsOverTheWindowNotSinceTheStart() {
        var meter = SpeedMeter(window: 3)
        // 10 s at 1 MB/s, then 3 s at 100 KB/s.
        for t in 0...10 { meter.record(bytes: Int64(t) * 1_000_000, at: Double(t)) }
        for t in 11...13 { meter.record(bytes: 10_000_000 + Int64(t - 10) * 100_000, at: Double(t)) }
        XCTAssertEqual(meter.rate(at: 13), 100_000, accuracy: 1)
    }

    func testStallFallsToZeroWithinTheWindow() {
        var meter = SpeedMeter(window: 3)
        for t in 0...5 { meter.record(bytes: Int64(t) * 1000, at: Double(t)) }
        XCTAssertEqual(meter.rate(at: 5), 1000, accuracy: 1)
        XCTAssertEqual(meter.rate(at: 6.5), 500, accuracy: 1)
        XCTAssertEqual(meter.rate(at: 9), 0, accuracy: 0.001)
    }

    func testARestartFromZeroResetsTheMeter() {
        var meter = SpeedMeter()
        meter.record(bytes: 5_000_000, at: 0)
        meter.record(bytes: 6_000_000, at: 1)
        meter.record(bytes: 0, at: 1.5)
        meter.record(bytes: 100_000, at: 2.5)
        XCTAssertEqual(meter.rate(at: 2.5), 100_000, accuracy: 1)
    }
}
