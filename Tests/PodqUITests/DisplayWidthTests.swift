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
