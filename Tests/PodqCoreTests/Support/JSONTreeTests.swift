import Foundation
import PodqBase
import PodqServer
import XCTest

/// JSON read without JSONSerialization gives the values JSONSerialization gave, on generated documents.
final class JSONTreeTests: XCTestCase {
    func testAgreesWithJSONSerializationOnGeneratedDocuments() throws {
        var random = SeededGenerator(seed: 461)
        func value(_ depth: Int) -> Any {
            switch Int.random(in: 0...(depth > 2 ? 4 : 6), using: &random) {
            case 0: return NSNull()
            case 1: return Bool.random(using: &random)
            case 2: return Double(Int.random(in: -1_000_000...1_000_000, using: &random)) / [1, 10, 1000].randomElement(using: &random)!
            case 3: return ["", "a", "é\"\\\n", "👩‍👩‍👧", "\u{1}"].randomElement(using: &random)!
            case 4: return Int.random(in: -5...1 << 40, using: &random)
            case 5: return (0..<Int.random(in: 0...3, using: &random)).map { _ in value(depth + 1) }
            default: return Dictionary(uniqueKeysWithValues: (0..<Int.random(in: 0...3, using: &random)).map { ("k\($0)", value(depth + 1)) })
            }
        }
        for _ in 0..<1_000 {
            let document = value(0)
            let data = try JSONSerialization.data(withJSONObject: document, options: [.fragmentsAllowed])
            let tree = try XCTUnwrap(JSONTree.parse(data), String(decoding: data, as: UTF8.self))
            XCTAssertEqual(tree, Self.tree(try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])), String(decoding: data, as: UTF8.self))
        }
        XCTAssertNil(JSONTree.parse(Array("{".utf8)))
        XCTAssertNil(JSONTree.parse([UInt8]()))
        XCTAssertEqual(JSONTree.any(Array(#"{"a": [1, "x", null, true]}"#.utf8)) as? [String: [Any?]] == nil, false)
    }

    /// What JSONSerialization's value is, as a tree.
    static func tree(_ value: Any) -> JSONTree {
        switch value {
        case is NSNull: return .null
        case let number as NSNumber where String(cString: number.objCType) == "c": return .bool(number.boolValue)
        case let flag as Bool: return .bool(flag)
        case let number as NSNumber: return .number(number.doubleValue)
        case let text as String: return .string(text)
        case let list as [Any]: return .array(list.map(tree))
        case let object as [String: Any]: return .object(object.mapValues(tree))
        default: return .null
        }
    }

    func testNumbersReadAsJSONWritesThem() {
        XCTAssertEqual(JSONTree.text(of: 3), "3")
        XCTAssertEqual(JSONTree.text(of: -12), "-12")
        XCTAssertEqual(JSONTree.text(of: 1.5), "1.5")
        XCTAssertEqual(JSONTree.any(Array("5".utf8)) as? Double, 5)
    }
}
