import Foundation
import PodqBase
import PodqServer
import XCTest

/// podq's replacements for Foundation's NSString calls (FoundationEssentials has none of them) give
/// Foundation's answers: on generated strings of the characters that make the difference (every kind
/// of space and line end, combining marks, CRLF, emoji), not only on samples.
final class StringEssentialsTests: XCTestCase {
    /// Scalars that trimming and searching can get wrong.
    static let alphabet: [String] = [
        "a", "Z", "é", "e\u{301}", " ", "\t", "\n", "\r", "\r\n", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{1680}", "\u{2003}",
        "\u{2028}", "\u{2029}", "\u{202F}", "\u{3000}", "\u{200B}", "\u{FEFF}", "\u{301}", "👩‍👩‍👧", "-", "+", "ab", "ß", "İ",
    ]

    static func random(_ random: inout SeededGenerator, _ alphabet: [String] = alphabet, upTo length: Int = 8) -> String {
        (0..<Int.random(in: 0...length, using: &random)).map { _ in alphabet.randomElement(using: &random)! }.joined()
    }

    func testTrimmingAgreesWithFoundation() {
        var random = SeededGenerator(seed: 451)
        for _ in 0..<5_000 {
            let text = Self.random(&random)
            XCTAssertEqual(text.trimmingSpaces, text.trimmingCharacters(in: .whitespaces), text.debugDescription)
            XCTAssertEqual(text.trimmingWhitespace, text.trimmingCharacters(in: .whitespacesAndNewlines), text.debugDescription)
            let sub = Substring(text)
            XCTAssertEqual(sub.trimmingWhitespace, text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// Literal replacement of every needle podq replaces (ASCII and line ends, the longer texts a
    /// password may be), in text with CRLF, combining marks and emoji around it.
    func testReplacingAgreesWithFoundation() {
        var random = SeededGenerator(seed: 452)
        let needles = ["\n", "\r\n", "+", "-", "ab", "a", " ", "'", "&", "|", "é", "👩‍👩‍👧", "--"]
        let replacements = ["", " ", "%20", "<br>", "'\\''", "…", "\n"]
        for _ in 0..<5_000 {
            let text = Self.random(&random, upTo: 12)
            let needle = needles.randomElement(using: &random)!
            let replacement = replacements.randomElement(using: &random)!
            let ours = text.replacingEvery(needle, with: replacement)
            XCTAssertEqual(
                ours, text.replacingOccurrences(of: needle, with: replacement, options: .literal), "\(text.debugDescription) \(needle.debugDescription)")
            // Foundation's default search also reads canonical equivalents and never matches part of a
            // character (a quote with a combining mark on it); without marks it is the same.
            if !text.unicodeScalars.contains(where: { $0.properties.canonicalCombiningClass != .notReordered || $0.value == 0x200D }) {
                XCTAssertEqual(ours, text.replacingOccurrences(of: needle, with: replacement), "\(text.debugDescription) \(needle.debugDescription)")
            }
        }
        // A quote that carries a combining mark is still a quote to the shell: escaped (Foundation's
        // default search would have left it, and the shell word open).
        XCTAssertEqual("a'\u{301}b".replacingEvery("'", with: "'\\''"), "a'\\''\u{301}b")
        XCTAssertEqual("a\r\nb".replacingEvery("\n", with: " "), "a\r b")
        XCTAssertEqual("aaa".replacingEvery("aa", with: "b"), "ba")
        XCTAssertEqual("abc".replacingEvery("", with: "x"), "abc")
    }

    /// Every format podq writes, with values around each rounding and width boundary.
    func testPrintfAgreesWithStringFormat() {
        var random = SeededGenerator(seed: 453)
        let doubles: [Double] = [0, 0.05, 0.049999, 0.95, 1.25, 1.35, 2.5, 999.95, 1e6 - 1, 59.99, 1e15, -0.0, 0.1 + 0.2]
        for value in doubles + (0..<500).map({ _ in Double.random(in: 0...100_000, using: &random) }) {
            for format in ["%.1f", "%.2f", "%.0f", " in %.1f s", "%.1f KB", "%.2fx curl's"] {
                XCTAssertEqual(String(printf: format, value), String(format: format, value), "\(format) \(value)")
            }
        }
        // Foundation's `%d` read 32 bits of an Int: `%ld` reads all of it.
        XCTAssertEqual(String(printf: "%ld:%02ld", (1 << 40) / 60, (1 << 40) % 60), "18325193796:16")
        for value in [0, 5, 9, 10, 59, 60, 99, 100, 3599, 3600, 86_399] + (0..<500).map({ _ in Int.random(in: 0...1_000_000, using: &random) }) {
            XCTAssertEqual(String(printf: "%ld:%02ld", value / 60, value % 60), String(format: "%d:%02d", value / 60, value % 60))
            XCTAssertEqual(String(printf: ".%03ld", value % 1000), String(format: ".%03d", value % 1000))
        }
        for byte in UInt8.min...UInt8.max {
            XCTAssertEqual(String(printf: "%02x", byte), String(format: "%02x", byte))
            XCTAssertEqual(String(printf: "%%%02X", byte), String(format: "%%%02X", byte))
            XCTAssertEqual(String(printf: "\\x%02X", byte), String(format: "\\x%02X", byte))
        }
        XCTAssertEqual(String(printf: "%02d:%02d", Int32(7), Int32(5)), "07:05")
        let long = String(repeating: "x", count: 500)
        XCTAssertEqual(String(printf: long + "%.1f", 2.25), long + "2.2")
    }

    /// Under a locale whose decimal mark is a comma (the TUI sets the user's), numbers keep their point.
    func testPrintfWritesAPointWhateverTheLocale() throws {
        let before = String(cString: setlocale(LC_NUMERIC, nil))
        defer { setlocale(LC_NUMERIC, before) }
        guard setlocale(LC_NUMERIC, "de_DE.UTF-8") != nil || setlocale(LC_NUMERIC, "fr_FR.UTF-8") != nil else {
            // Without such a locale installed the C library's own formatting shows the point anyway;
            // the point is still asserted below.
            XCTAssertEqual(String(printf: "%.1f", 1.5), "1.5")
            return
        }
        XCTAssertEqual(String(printf: "%.1f", 1.5), "1.5")
    }
}
