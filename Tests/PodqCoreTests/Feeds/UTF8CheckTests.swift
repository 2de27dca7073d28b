import XCTest

@testable import PodqCore

/// The in-place UTF-8 check agrees with the standard library's validation.
final class UTF8CheckTests: XCTestCase {
    private func tail(_ bytes: [UInt8]) -> Int? { bytes.withUnsafeBytes { UTF8Check.incompleteTail($0) } }

    func testValidTextOfEveryLength() {
        XCTAssertEqual(tail(Array("plain ascii, long enough for the fast path".utf8)), 0)
        XCTAssertEqual(tail(Array("é ポッドキャスト 🎧 \u{10FFFF}".utf8)), 0)
        XCTAssertEqual(tail([]), 0)
    }

    func testInvalidSequencesAreRefused() {
        XCTAssertNil(tail([0xC0, 0x80]), "overlong")
        XCTAssertNil(tail([0xE0, 0x80, 0x80]), "overlong three-byte")
        XCTAssertNil(tail([0xED, 0xA0, 0x80]), "a surrogate")
        XCTAssertNil(tail([0xF4, 0x90, 0x80, 0x80]), "above U+10FFFF")
        XCTAssertNil(tail([0x41, 0x80, 0x41]), "a lone continuation byte")
        XCTAssertNil(tail([0xE2, 0x41, 0x41]), "a lead without its continuation")
    }

    func testASequenceCutAtTheEndIsReportedNotRefused() {
        let emoji = Array("ab🎧".utf8)
        XCTAssertEqual(tail(Array(emoji.dropLast())), 3)
        XCTAssertEqual(tail(Array(emoji.dropLast(3))), 1)
    }

    func testAgreesWithTheStandardLibraryOnRandomBytes() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x41, 0x7F, 0x80, 0xBF, 0xC2, 0xDF, 0xE0, 0xA0, 0xED, 0x9F, 0xF0, 0x90, 0xF4, 0x8F, 0xFF]
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            let valid = String(validating: bytes, as: UTF8.self) != nil
            switch tail(bytes) {
            case nil: XCTAssertFalse(valid, "\(bytes)")
            case 0: XCTAssertTrue(valid, "\(bytes)")
            case let k?:
                XCTAssertFalse(valid)
                XCTAssertNotNil(String(validating: bytes.dropLast(k), as: UTF8.self), "\(bytes)")
            }
        }
    }
}
