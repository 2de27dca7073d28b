import PodqUI
import XCTest

final class SpeedHistoryTests: XCTestCase {
    func testASampleASecondTheLastSpeedOfEachAndSecondsWithoutFramesAreZero() {
        var history = SpeedHistory(capacity: 5)
        history.record(100, at: 10.0)
        history.record(300, at: 10.9)  // the same second: its last speed counts
        history.record(200, at: 11.2)
        XCTAssertEqual(history.samples, [300, 200])
        history.record(50, at: 14.5)  // 12 and 13 had no frame: nothing ran
        XCTAssertEqual(history.samples, [300, 200, 0, 0, 50])
        history.record(60, at: 15.0)
        XCTAssertEqual(history.samples, [200, 0, 0, 50, 60], "the oldest goes")
        history.record(70, at: 100)
        XCTAssertEqual(history.samples, [0, 0, 0, 0, 70], "a long pause")
    }

    func testTheSparklineScalesToItsHighestSampleAndIsEmptyWhenNothingRan() {
        XCTAssertEqual(SpeedHistory.sparkline([0, 1, 2, 3, 4, 5, 6, 7, 8], width: 9), "▁▁▂▃▄▅▆▇█")
        XCTAssertEqual(SpeedHistory.sparkline([8, 0, 4, 8], width: 2), "▄█", "the last samples")
        XCTAssertEqual(SpeedHistory.sparkline([0, 0, 0], width: 3), "")
        XCTAssertEqual(SpeedHistory.sparkline([5], width: 0), "")
    }
}
