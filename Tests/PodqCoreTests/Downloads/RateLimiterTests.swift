import XCTest

@testable import PodqCore

/// The shared schedule, on a clock the test moves.
final class RateLimiterTests: XCTestCase {
    final class Clock: @unchecked Sendable {
        var now: UInt64 = 1_000_000_000
    }

    func testChunksBookTheScheduleInTurn() {
        let clock = Clock()
        let limiter = RateLimiter(bytesPerSecond: 1000) { clock.now }
        XCTAssertEqual(limiter.delay(afterReceiving: 500), 500_000_000, "half a second for 500 bytes at 1000 B/s")
        XCTAssertEqual(limiter.delay(afterReceiving: 500), 1_000_000_000, "a second download books after the first")
        clock.now += 3_000_000_000
        XCTAssertEqual(limiter.delay(afterReceiving: 1000), 1_000_000_000, "idle time buys no burst")
        limiter.bytesPerSecond = 2000
        clock.now += 1_000_000_000
        XCTAssertEqual(limiter.delay(afterReceiving: 1000), 500_000_000, "a new rate applies to the next chunk")
        limiter.bytesPerSecond = nil
        XCTAssertEqual(limiter.delay(afterReceiving: 1_000_000), 0, "no limit, no wait")
    }

    func testRatesAreReadLikeCurls() {
        XCTAssertTrue(RateLimiter.parse("500K") == (true, 512_000))
        XCTAssertTrue(RateLimiter.parse("2M") == (true, 2 * 1024 * 1024))
        XCTAssertTrue(RateLimiter.parse("1.5m") == (true, 1_572_864))
        XCTAssertTrue(RateLimiter.parse("20000") == (true, 20000))
        for none in ["0", "none", "off"] { XCTAssertTrue(RateLimiter.parse(none) == (true, nil), none) }
        for bad in ["", "fast", "-5K", "5", "9K", "nanK"] { XCTAssertFalse(RateLimiter.parse(bad).valid, bad) }
    }
}
