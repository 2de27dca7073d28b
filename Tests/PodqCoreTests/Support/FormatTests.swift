import PodqCore
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
