import Foundation
import PodqBase
import PodqServer
import XCTest

/// Percent-encoding without CharacterSet gives Foundation's answers on generated text.
final class PercentEncodingTests: XCTestCase {
    static let alphabet = [
        "a", "Z", "0", " ", "%", "%2", "%20", "%zz", "%e9", "%C3%A9", "%FF", "#", "?", "&", "=", "/", ":", "+", "~", "é", "👩‍👩‍👧", "[", "\"", "<",
    ]

    func testEncodingAgreesWithFoundation() {
        var random = SeededGenerator(seed: 454)
        var query = CharacterSet.urlQueryAllowed
        query.insert(charactersIn: "#%")
        let segment = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        for _ in 0..<5_000 {
            let text = StringEssentialsTests.random(&random, Self.alphabet, upTo: 10)
            XCTAssertEqual(
                PercentEncoding.encode(text, allowing: PercentEncoding.Allowed.urlQuery.adding("#%")), text.addingPercentEncoding(withAllowedCharacters: query))
            XCTAssertEqual(
                PercentEncoding.encode(text, allowing: PercentEncoding.Allowed.alphanumerics.adding("-_.")),
                text.addingPercentEncoding(withAllowedCharacters: segment))
            // Foundation's `.alphanumerics` keeps letters of every script; podq's keeps ASCII ones
            // (a form field is ASCII): the same wherever the text is ASCII.
            if text.utf8.allSatisfy({ $0 < 0x80 }) {
                XCTAssertEqual(PercentEncoding.encode(text, allowing: .alphanumerics), text.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            }
        }
    }

    func testDecodingAgreesWithFoundation() {
        var random = SeededGenerator(seed: 455)
        for _ in 0..<5_000 {
            let text = StringEssentialsTests.random(&random, Self.alphabet, upTo: 6)
            XCTAssertEqual(PercentEncoding.decode(text), text.removingPercentEncoding, text)
        }
        XCTAssertEqual(PercentEncoding.decode("a%2Fb"), "a/b")
        XCTAssertNil(PercentEncoding.decode("%"))
        XCTAssertNil(PercentEncoding.decode("%FF"))
    }

    /// Whatever the text, encoding then decoding gives it back.
    func testEncodingRoundTrips() {
        var random = SeededGenerator(seed: 456)
        for _ in 0..<2_000 {
            let text = StringEssentialsTests.random(&random, Self.alphabet + StringEssentialsTests.alphabet, upTo: 10)
            XCTAssertEqual(PercentEncoding.decode(PercentEncoding.encode(text, allowing: .unreserved)), text)
        }
    }
}
