import PodqCore
import PodqTestSupport
import XCTest

/// Truncated, byte-flipped and hostile variants of every fixture: no crash, and a clear error for
/// each one that cannot be read.
final class FeedRobustnessTests: XCTestCase {
    func testMangledFixturesNeverCrashAndFailClearly() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let names = try FileManager.default.contentsOfDirectory(atPath: FeedParserTests.fixtures.path).sorted()
        XCTAssertGreaterThan(names.count, 10)
        var generator = SeededBytes(seed: 2026)
        var parsed = 0
        var refused = 0
        for name in names {
            let original = try [UInt8](Data(contentsOf: FeedParserTests.fixtures.appendingPathComponent(name)))
            var variants: [[UInt8]] = []
            for cut in [0, 1, original.count / 3, original.count / 2, original.count - 2] { variants.append(Array(original.prefix(cut))) }
            for _ in 0..<12 {
                var flipped = original
                for _ in 0..<3 {
                    let i = Int(generator.next() % UInt64(flipped.count))
                    flipped[i] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
                }
                variants.append(flipped)
            }
            variants.append(original + Array("<<<&&&\u{0}".utf8))
            for (i, bytes) in variants.enumerated() {
                let path = dir.file("\(name)-\(i).xml")
                _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
                do {
                    let feed = try FeedParser.parse(file: path, baseURL: URL(string: "https://e.org/feed"))
                    parsed += 1
                    for text in [feed.title] + feed.episodes.map(\.title) {
                        XCTAssertFalse(text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(name) #\(i)")
                    }
                } catch {
                    // Typed throws: every failure is a FeedError, with a message.
                    refused += 1
                    XCTAssertFalse(error.localizedDescription.isEmpty)
                }
            }
        }
        XCTAssertGreaterThan(parsed, 0)
        XCTAssertGreaterThan(refused, 0)
    }

    /// Markup inside a field (HTML that a feed did not escape, a prefixed element) keeps the text
    /// around it: the field reads as its text, and the elements after it still fill their fields.
    func testMixedContentKeepsTheTextAroundChildElements() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("mixed.xml")
        try """
        <rss version="2.0" xmlns:x="urn:x"><channel><title>Show <x:b>bold</x:b> name</title>
        <item><title>Part <i>one</i>: the start</title><description>Hello <p>world</p> and <b>more</b>.</description>
        <enclosure url="http://h/1.mp3"/><guid>g1</guid></item>
        <item><title>Two</title><enclosure url="http://h/2.mp3"/></item>
        </channel></rss>
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let feed = try FeedParser.parse(file: path)
        XCTAssertEqual(feed.title, "Show bold name")
        XCTAssertEqual(feed.episodes.map(\.title), ["Part one: the start", "Two"])
        XCTAssertEqual(feed.episodes.first?.description, "Hello world and more.")
        XCTAssertEqual(feed.episodes.first?.guid, "g1", "a field after mixed content is read alone")
    }
}
