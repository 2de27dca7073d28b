import PodqCore
import PodqHTTP
import XCTest

final class ContentRangeTests: XCTestCase {
    func testParsesTheThreeForms() {
        XCTAssertEqual(ContentRange("bytes 100-199/1000"), ContentRange(range: 100...199, total: 1000))
        XCTAssertEqual(ContentRange("bytes 0-9/*"), ContentRange(range: 0...9, total: nil))
        XCTAssertEqual(ContentRange("bytes */1000"), ContentRange(range: nil, total: 1000))
        XCTAssertEqual(ContentRange("Bytes 5-5/6"), ContentRange(range: 5...5, total: 6))
    }

    func testRejectsInvalidRanges() {
        for bad in ["bytes 10-5/100", "bytes 0-100/100", "bytes */*", "items 0-1/2", "bytes 1-2", "bytes -1-2/5", "", "bytes a-b/c"] {
            XCTAssertNil(ContentRange(bad), bad)
        }
    }
}
