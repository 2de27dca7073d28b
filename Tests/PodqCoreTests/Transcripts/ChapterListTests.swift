import Foundation
import XCTest

@testable import PodqCore

/// Podcasting 2.0's JSON chapters as publishers write them.
final class ChapterListTests: XCTestCase {
    func testChaptersWithImagesLinksAndHiddenOnes() throws {
        let json = """
            {"version": "1.2.0", "author": "A", "title": "Ep",
             "chapters": [
               {"startTime": 0, "title": "Intro", "img": "https://example.org/intro.jpg"},
               {"startTime": 95.5, "title": "Sponsor", "toc": false},
               {"startTime": "0:10:00", "endTime": 900, "title": "The <b>main</b> topic &amp; more", "url": "https://example.org/topic"},
               {"startTime": 60, "title": "Out of order", "url": "javascript:alert(1)", "img": "file:///etc/passwd"},
               {"title": "No time"}
             ]}
            """
        let read = try ChapterList.read(Array(json.utf8))
        XCTAssertEqual(read.chapters.map(\.title), ["Intro", "Out of order", "Sponsor", "The main topic & more"])
        XCTAssertEqual(read.chapters.map(\.start), [0, 60, 95.5, 600])
        XCTAssertEqual(read.listed.map(\.title), ["Intro", "Out of order", "The main topic & more"], "toc false is not listed")
        XCTAssertEqual(read.chapters[0].image, "https://example.org/intro.jpg")
        XCTAssertEqual(read.chapters[1].url, nil, "only http(s) links")
        XCTAssertEqual(read.chapters[1].image, nil)
        XCTAssertEqual(read.chapters[3].end, 900)
        XCTAssertEqual(read.chapters[3].url, "https://example.org/topic")
        XCTAssertEqual(read.notes, ["1 chapter without a start time left out", "the chapters were out of time order: sorted by time"])
    }

    func testWhatIsNotAChapterListSaysSo() {
        XCTAssertThrowsError(try ChapterList.read(Array("{\"version\": 1}".utf8))) {
            XCTAssertEqual($0 as? TranscriptError, .notJSON("it has no \"chapters\""))
        }
        XCTAssertThrowsError(try ChapterList.read(Array("<html>".utf8))) { XCTAssertTrue("\($0)".contains("not well-formed JSON")) }
        let deep = String(repeating: "{\"chapters\":", count: 50_000)
        XCTAssertThrowsError(try ChapterList.read(Array(deep.utf8)))
    }
}
