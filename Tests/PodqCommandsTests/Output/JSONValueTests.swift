import XCTest

@testable import PodqCommands
@testable import PodqSession

final class JSONValueTests: XCTestCase {
    func testWritesValidSortedJSON() throws {
        let value = JSONValue.object(["b": .int(-3), "a": .string("q\"uote\\ \n\u{1}é🎧"), "c": .array([.null, .optional(Int?.none), .optional("x")])])
        XCTAssertEqual(value.text, #"{"a":"q\"uote\\ \n\u0001é🎧","b":-3,"c":[null,null,"x"]}"#)
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(value.text.utf8)) as? [String: Any])
        XCTAssertEqual(parsed["a"] as? String, "q\"uote\\ \n\u{1}é🎧")
    }
}
