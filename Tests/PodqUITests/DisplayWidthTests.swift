import PodqUI
import XCTest

final class DisplayWidthTests: XCTestCase {
    func testWidths() {
        XCTAssertEqual(DisplayWidth.of("abc"), 3)
        XCTAssertEqual(DisplayWidth.of("ポッド"), 6)
        XCTAssertEqual(DisplayWidth.of("한국어"), 6)
        XCTAssertEqual(DisplayWidth.of("🎧"), 2)
        XCTAssertEqual(DisplayWidth.of("e\u{301}"), 1, "a combining accent takes no cell")
        XCTAssertEqual(DisplayWidth.of("🎙️"), 2, "emoji presentation is wide")
    }

    /// The fast paths (one scalar a character; text of simple scalars laid out a scalar a cell) give
    /// what the character-by-character reading gives, for random text mixing every kind of scalar:
    /// combining marks, joiners, selectors, flags and wide ones next to the simple ones.
    func testTheFastPathsAgreeWithTheCharacterByCharacterReading() {
        let pool: [UInt32] = [
            0x61, 0x20, 0x7E, 0xB7, 0xE9, 0xAD, 0x2014, 0x2026, 0x2588, 0x258C, 0x25CF, 0x301, 0x200D, 0xFE0F, 0xFE0E,
            0x1F1EF, 0x1F1F5, 0x1F3A7, 0x30DD, 0xAC00, 0x1100, 0x1161, 0x2600, 0x2764, 0x0E01, 0x0E33, 0x9, 0x7F, 0x85,
        ]
        var random = SystemRandomNumberGenerator()
        func reference(_ character: Character) -> Int {
            if let ascii = character.asciiValue { return ascii >= 0x20 && ascii != 0x7F ? 1 : 0 }
            var width = character.unicodeScalars.map(DisplayWidth.of).max() ?? 0
            if character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { width = max(width, 2) }
            if character.unicodeScalars.count == 2, character.unicodeScalars.allSatisfy({ (0x1F1E6...0x1F1FF).contains($0.value) }) { width = 2 }
            return width
        }
        for _ in 0..<3_000 {
            let simpleOnly = Bool.random(using: &random)
            let choices = simpleOnly ? pool.filter { DisplayWidth.isSimple(Unicode.Scalar($0)!) } : pool
            var text = ""
            for _ in 0..<Int.random(in: 0...12, using: &random) { text.unicodeScalars.append(Unicode.Scalar(choices.randomElement(using: &random)!)!) }
            let widths = text.map(reference)
            XCTAssertEqual(text.map(DisplayWidth.of), widths, text.debugDescription)
            XCTAssertEqual(DisplayWidth.of(text), widths.reduce(0, +), text.debugDescription)
            // The grid: each character in the cell where the one before it ended, a wide one's second
            // cell empty, and the column after the last one that fits returned.
            var grid = Grid(width: 30, height: 1)
            let end = grid.put(text, x: 1, y: 0, style: .accent)
            var x = 1
            for (ch, w) in zip(text, widths) where w > 0 {
                if x + w > 30 { break }
                XCTAssertEqual(grid[x, 0].character, ch, text.debugDescription)
                if w == 2 { XCTAssertNil(grid[x + 1, 0].character, text.debugDescription) }
                x += w
            }
            XCTAssertEqual(end, x, text.debugDescription)
        }
    }

    func testTruncateAndPadKeepCellCounts() {
        XCTAssertEqual(DisplayWidth.truncate("ポッドキャスト", to: 7), "ポッド…")
        XCTAssertEqual(DisplayWidth.of(DisplayWidth.pad("ポッドキャスト", to: 8)), 8)
        XCTAssertEqual(DisplayWidth.pad("ab", to: 4), "ab  ")
        XCTAssertEqual(DisplayWidth.truncate("abcdef", to: 4), "abc…")
    }
}

final class DisplayWidthWrapTests: XCTestCase {
    func testWrapBreaksAtSpacesAndInsideLongWordsNeverSplittingWideCharacters() {
        XCTAssertEqual(DisplayWidth.wrap("one two three four", to: 9), ["one two", "three", "four"])
        XCTAssertEqual(DisplayWidth.wrap("abcdefghij", to: 4), ["abcd", "efgh", "ij"])
        XCTAssertEqual(DisplayWidth.wrap("日本語のテキスト", to: 5), ["日本", "語の", "テキ", "スト"], "two cells each: never half a character")
        XCTAssertEqual(DisplayWidth.wrap("a  b", to: 10), ["a b"])
        XCTAssertEqual(DisplayWidth.wrap("", to: 10), [""])
        XCTAssertEqual(DisplayWidth.wrap("x", to: 0), [])
        XCTAssertEqual(DisplayWidth.wrap("🇯🇵 flag", to: 4), ["🇯🇵", "flag"], "a flag is one cluster")
        XCTAssertEqual(DisplayWidth.of("🇯🇵"), 2, "a flag is two cells")
        XCTAssertEqual(DisplayWidth.of("🇯🇵🇫🇷"), 4)
        XCTAssertEqual(DisplayWidth.of("e\u{301}te\u{301}"), 3, "combining accents take no cell")
        for line in DisplayWidth.wrap(String(repeating: "wörd ", count: 50), to: 13) { XCTAssertLessThanOrEqual(DisplayWidth.of(line), 13) }
    }
}
