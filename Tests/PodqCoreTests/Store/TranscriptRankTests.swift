import PodqServer
import XCTest

@testable import PodqCore

/// ``TranscriptRank``: its fast count for ASCII cues agrees with the tokens as `unicode61` cuts them,
/// and FTS5's averages record is read as FTS5 writes it.
final class TranscriptRankTests: XCTestCase {
    /// Random ASCII cues (letters of both cases, digits, punctuation, runs of separators) and random
    /// phrases from the same letters: the same places and length both ways, whole words and prefixes.
    func testTheASCIICountIsTheTokensCount() {
        var random = SeededGenerator(seed: 4_647)
        let alphabet = Array("abAB1 ,.-_'\t\n!zZ")
        let vocabulary = ["a", "ab", "b", "ba", "1", "ab1", "zz"]
        for _ in 0..<5_000 {
            let text = String((0..<Int.random(in: 0...40, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            let words = (0..<Int.random(in: 1...3, using: &random)).map { _ in vocabulary.randomElement(using: &random)! }
            for prefix in [false, true] {
                let fast = TranscriptRank.asciiCount(words.map { Array($0.utf8) }, in: text, prefix: prefix)
                let slow = TranscriptRank.count(words, in: text, prefix: prefix)
                XCTAssertEqual(fast?.found, slow.found, "\(text.debugDescription) \(words) \(prefix)")
                XCTAssertEqual(fast?.length, slow.length, "\(text.debugDescription)")
            }
        }
        XCTAssertNil(TranscriptRank.asciiCount([Array("ete".utf8)], in: "Été", prefix: false), "not ASCII: the tokens' way")
    }

    func testVarintsAndTheAveragesRecord() {
        var offset = 0
        XCTAssertEqual(TranscriptRank.varint([0x05], &offset), 5)
        offset = 0
        XCTAssertEqual(TranscriptRank.varint([0x81, 0x00], &offset), 128)
        offset = 0
        XCTAssertEqual(TranscriptRank.varint([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], &offset), .max)
        offset = 0
        XCTAssertNil(TranscriptRank.varint([0x81], &offset), "cut short")
        // 10 rows, 125 tokens in the first column, 0 in the second.
        XCTAssertEqual(TranscriptRank.averageLength(averagesRecord: [0x0A, 0x7D, 0x00]), 12.5)
        XCTAssertNil(TranscriptRank.averageLength(averagesRecord: [0x00, 0x00]), "no rows")
        XCTAssertNil(TranscriptRank.averageLength(averagesRecord: []))
    }
}
