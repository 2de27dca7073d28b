import PodqBase
import XCTest

@testable import PodqCore

final class FeedDateTests: XCTestCase {
    private func unix(_ text: String) -> Int64? { FeedDate.parse(text).map { Int64($0.timeIntervalSince1970) } }

    func testRFC822AndItsVariants() {
        let t: Int64 = 1_795_255_200  // 2026-11-21 10:00:00 UTC
        XCTAssertEqual(unix("Sat, 21 Nov 2026 10:00:00 GMT"), t)
        XCTAssertEqual(unix("Sat, 21 Nov 2026 10:00:00 +0000"), t)
        XCTAssertEqual(unix("21 Nov 2026 10:00:00 GMT"), t, "no weekday")
        XCTAssertEqual(unix("Sat, 21 Nov 2026 05:00:00 EST"), t, "a named US zone")
        XCTAssertEqual(unix("Sat, 21 Nov 2026 11:00:00 +01:00"), t, "an offset with a colon")
        XCTAssertEqual(unix("Sat, 21 November 2026 10:00 GMT"), t, "a full month name, no seconds")
        XCTAssertEqual(unix("Sat, 21 Nov 26 10:00:00 GMT"), t, "a two-digit year")
        XCTAssertEqual(unix("Sat,21 Nov 2026 10:00:00"), t, "no space after the comma, no zone")
        XCTAssertEqual(unix("Sun, 1 Nov 2026 10:00:00 GMT"), t - 20 * 86_400, "a one-digit day")
        XCTAssertEqual(unix("Tue, 01 Sept 2026 00:00:00 GMT"), 1_788_220_800)
    }

    func testISO8601() {
        XCTAssertEqual(unix("2026-11-21T10:00:00Z"), 1_795_255_200)
        XCTAssertEqual(unix("2026-11-21T11:00:00+01:00"), 1_795_255_200)
        XCTAssertEqual(unix("2026-11-21T05:00:00.750-05:00"), 1_795_255_200)
        XCTAssertEqual(unix("2026-11-21"), 1_795_219_200)
    }

    func testNonsenseIsNil() {
        for bad in ["", "yesterday", "32 Foo 2026", "2026-13-01", "Sat, 21 Nov 2026 25:00:00 GMT", "12345"] {
            XCTAssertNil(FeedDate.parse(bad), bad)
        }
    }

    func testDurations() {
        XCTAssertEqual(FeedDate.duration("3723"), 3723)
        XCTAssertEqual(FeedDate.duration("45:30"), 2730)
        XCTAssertEqual(FeedDate.duration("01:02:03"), 3723)
        XCTAssertEqual(FeedDate.duration(" 1:02:03.6 "), 3724)
        XCTAssertNil(FeedDate.duration("1:2:3:4"))
        XCTAssertNil(FeedDate.duration("an hour"))
        XCTAssertNil(FeedDate.duration("-5"))
    }

    /// The byte-level reading of the common form agrees with the general one on every string it
    /// takes, and leaves the rest to it: random strings of digits, colons, dots, spaces and signs.
    func testThePlainDurationReadingAgreesWithTheGeneralOne() {
        let alphabet = Array("0123456789::: .-+e")
        var taken = 0
        for _ in 0..<20_000 {
            let text = String((0..<Int.random(in: 0...14)).map { _ in alphabet.randomElement()! })
            if let plain = FeedDate.plainDuration(text) {
                taken += 1
                XCTAssertEqual(plain, FeedDate.generalDuration(text), text)
            }
            XCTAssertEqual(FeedDate.duration(text), FeedDate.plainDuration(text) ?? FeedDate.generalDuration(text), text)
        }
        XCTAssertGreaterThan(taken, 100)
        for text in ["0", "00:00:00", "999999999", "1000000000", "16666666:39", "9999999999", "1:", ":1", "1::2"] {
            XCTAssertEqual(FeedDate.plainDuration(text) ?? FeedDate.generalDuration(text), FeedDate.generalDuration(text), text)
        }
    }
}
