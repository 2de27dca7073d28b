import PodqBase
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

    func testBidiMarksAndInvisibleFormatCharactersGoToo() {
        XCTAssertEqual(SafeText.clean("a\u{200E}b\u{200F}c\u{061C}d\u{2066}e\u{2069}f\u{FEFF}g\u{200B}h"), "abcdefgh")
        XCTAssertEqual(SafeText.clean("👩\u{200D}💻"), "👩\u{200D}💻", "a joiner inside an emoji stays")
    }

    func testTerminalFormKeepsLinesAndDropsEverythingElseUnsafe() {
        XCTAssertEqual(SafeText.terminal("one\n\ttwo\u{1B}[2J\r\u{85}\u{202E}three"), "one\n\ttwothree")
        XCTAssertEqual(SafeText.terminal("plain line"), "plain line")
    }

    func testCredentialsInURLsAreRedactedWhereverTheyAre() {
        XCTAssertEqual(
            SafeText.redactingCredentials("GET https://alice:s3cret@host.example/feed?x=1 failed"),
            "GET https://***@host.example/feed?x=1 failed")
        XCTAssertEqual(SafeText.redactingCredentials("a http://token@h/p and ftp://u:p@h2"), "a http://***@h/p and ftp://***@h2")
        XCTAssertEqual(SafeText.redactingCredentials("mail me@example.org at https://h/p?to=x@y"), "mail me@example.org at https://h/p?to=x@y")
        XCTAssertEqual(SafeText.terminal("https://u:pw@h/"), "https://***@h/")
    }

    func testEveryUnsafeScalarIsUnsafeAndNothingElseBelow0x3000() {
        for value in UInt32(0)..<0x3000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let cleaned = SafeText.clean("a" + String(scalar) + "b")
            if SafeText.isUnsafe(scalar) {
                XCTAssertFalse(cleaned.unicodeScalars.contains(scalar), "U+\(String(value, radix: 16)) removed")
            }
            XCTAssertFalse(cleaned.unicodeScalars.contains { SafeText.isUnsafe($0) })
        }
    }
}
