import PodqCore
import XCTest

@testable import PodqHTTP

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

    /// A paced connection reads about a quarter second of the limit at once: a power of two, 8 KiB at
    /// least, never more than its share of the budget; every rate from the slowest up.
    func testAPacedReadIsAQuarterSecondOfTheLimit() {
        XCTAssertEqual(RateLimiter().readSize(atMost: 256 << 10), 256 << 10, "no limit: the whole share")
        for rate in stride(from: RateLimiter.slowest, through: 64 << 20, by: 37_717) {
            let size = RateLimiter(bytesPerSecond: rate).readSize(atMost: 256 << 10)
            XCTAssertEqual(size & (size - 1), 0, "a power of two at \(rate)")
            XCTAssertGreaterThanOrEqual(size, 8 << 10)
            XCTAssertLessThanOrEqual(size, 256 << 10)
            XCTAssertTrue(size == 8 << 10 || size <= rate / 4, "\(size) at \(rate) B/s: a turn of at most a quarter second")
            XCTAssertTrue(size == 256 << 10 || size * 2 > rate / 4, "\(size) at \(rate) B/s: not smaller than it need be")
        }
        XCTAssertEqual(RateLimiter(bytesPerSecond: 10 << 10).readSize(atMost: 4 << 10), 4 << 10, "never above the share")
    }

    /// K and M are the units podq shows speeds in (1000, 1000²): `2M` is the "2.0 MB/s" the TUI says.
    func testRatesAreReadInTheUnitsSpeedsAreShownIn() {
        for (text, rate) in [
            ("500K", 500_000), ("2M", 2_000_000), ("1.5m", 1_500_000), ("20000", 20000), ("500KB", 500_000), ("2MB/s", 2_000_000),
            ("2MiB", 2 * 1024 * 1024), ("10KiB", 10240), ("10K", 10_000),
        ] {
            XCTAssertTrue(RateLimiter.parse(text) == (true, rate), "\(text): \(RateLimiter.parse(text))")
        }
        for none in ["0", "none", "off"] { XCTAssertTrue(RateLimiter.parse(none) == (true, nil), none) }
        for bad in ["", "fast", "-5K", "5", "9K", "nanK", "2G", "MB"] { XCTAssertFalse(RateLimiter.parse(bad).valid, bad) }
        for rate in [10_000, 500_000, 2_000_000, 123_456] {
            XCTAssertEqual(RateLimiter.parse(RateLimiter.written(rate)).bytesPerSecond, rate, "what `<` and `>` save reads back the same")
        }
        XCTAssertEqual(RateLimiter.written(2_000_000), "2M")
        XCTAssertEqual(RateLimiter.written(500_000), "500K")
    }

    /// `>` doubles up to 16 MB/s, then lifts the limit: from 1 MB/s, five presses (ten before). `<`
    /// halves, from half the current speed when there is no limit, never below the slowest.
    func testTheKeysLadderFromTheSlowestToNoLimit() {
        var rate: Int? = 1_000_000
        var presses = 0
        while let current = rate {
            rate = RateLimiter.faster(than: current)
            presses += 1
        }
        XCTAssertEqual(presses, 5)
        XCTAssertEqual(RateLimiter.faster(than: 8_000_000), 16_000_000)
        XCTAssertNil(RateLimiter.faster(than: 16_000_000))
        XCTAssertEqual(RateLimiter.slower(than: nil, speed: 6_000_000), 3_000_000)
        XCTAssertEqual(RateLimiter.slower(than: nil, speed: 0), RateLimiter.slowest, "nothing moving: the slowest")
        XCTAssertEqual(RateLimiter.slower(than: 15_000, speed: 0), RateLimiter.slowest)
        XCTAssertEqual(RateLimiter.slower(than: 2_000_000, speed: 0), 1_000_000)
        var down: Int? = nil
        for _ in 0..<40 { down = RateLimiter.slower(than: down, speed: 1e15) }
        XCTAssertEqual(down, RateLimiter.slowest, "any speed halves down to the slowest")
    }
}
