import PodqCore
import XCTest

final class SafeTextTests: XCTestCase {
    func testStripsEscapeSequencesAndControls() {
        XCTAssertEqual(SafeText.clean("\u{1B}[31mRed\u{1B}[0m title"), "Red title")
        XCTAssertEqual(SafeText.clean("a\u{1B}]0;pwned\u{07}b"), "ab")
        XCTAssertEqual(SafeText.clean("x\u{9B}2Jy"), "xy")
        XCTAssertEqual(SafeText.clean("bell\u{07}\u{00}\u{7F}"), "bell")
        XCTAssertEqual(SafeText.clean("  two\n\tlines  "), "two lines")
        XCTAssertEqual(SafeText.clean("rtl\u{202E}txt"), "rtltxt")
    }

    func testKeepsWideAndAccentedText() {
        XCTAssertEqual(SafeText.clean("ポッドキャスト 🎙️ café"), "ポッドキャスト 🎙️ café")
    }

    func testNoControlScalarSurvivesAnyInput() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let scalars = (0..<40).compactMap { _ in Unicode.Scalar(UInt32.random(in: 0...0x20FF, using: &generator)) }
            let cleaned = SafeText.clean(String(String.UnicodeScalarView(scalars)))
            XCTAssertFalse(cleaned.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        }
    }
}
