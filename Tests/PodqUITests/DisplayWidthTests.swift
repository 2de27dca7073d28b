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
