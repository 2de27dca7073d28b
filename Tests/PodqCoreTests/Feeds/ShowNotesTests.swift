import PodqBase
import PodqCore
import XCTest

/// Show notes as the detail pane shows them: plain text, paragraphs, nothing raw from the feed.
final class ShowNotesTests: XCTestCase {
    func testHTMLBecomesParagraphsWithEntitiesReadAndTagsGone() {
        let html = """
            <p>Tom &amp; Jerry&#8217;s <b>guide</b>&nbsp;to   <i>everything</i>.</p>
            <ul><li>first</li><li>second <a href="https://e.example/2">link</a></li></ul>
            line one<br>line two<br/>
            <a href="https://e.example/x">https://e.example/x</a>
            <script>alert("no")</script><style>p { color: red }</style>
            <p>Unclosed <b>bold
            """
        XCTAssertEqual(
            ShowNotes.paragraphs(html),
            [
                "Tom & Jerry’s guide to everything.",
                "• first",
                "• second link <https://e.example/2>",
                "line one",
                "line two",
                "https://e.example/x",
                "Unclosed bold",
            ])
    }

    func testPlainTextKeepsItsLinesAndReadsEntities() {
        XCTAssertEqual(ShowNotes.paragraphs("First line\n\nSecond &amp; last"), ["First line", "Second & last"])
        XCTAssertEqual(ShowNotes.paragraphs("No markup at all"), ["No markup at all"])
        XCTAssertEqual(ShowNotes.paragraphs(""), [])
    }

    func testNothingRawReachesTheTerminal() {
        let hostile = "<p>red \u{1B}[31mtext\u{07} and &#27;[2J and &#x9b;31m</p>\u{202E}evil"
        for paragraph in ShowNotes.paragraphs(hostile) {
            XCTAssertFalse(paragraph.unicodeScalars.contains { SafeText.isUnsafe($0) }, paragraph.debugDescription)
        }
        XCTAssertEqual(ShowNotes.paragraphs(String(repeating: "<div>", count: 200) + "deep"), ["deep"])
        // Past libxml2's depth limit the text is cut, but the walk costs no stack and ends.
        let deep = ShowNotes.paragraphs(String(repeating: "<div>", count: 50_000) + "deep")
        XCTAssertTrue(deep.isEmpty || deep == ["deep"], "\(deep)")
    }
}
