import XCTest

@testable import PodqCore

/// When a downloaded episode changed upstream, and when it only looks so.
final class UpstreamChangeTests: XCTestCase {
    private let url = "https://cdn.example.com/show/ep1.mp3"

    func testAnotherFileIsAChange() {
        XCTAssertNotNil(UpstreamChange.detect(oldURL: url, newURL: "https://cdn.example.com/show/ep1-fixed.mp3", oldLength: nil, newLength: nil, fileSize: 100))
        XCTAssertNotNil(
            UpstreamChange.detect(oldURL: url, newURL: url + "?updated=1700000000", oldLength: nil, newLength: nil, fileSize: 100),
            "a host's own version parameter")
    }

    func testTrackingPrefixesAndParametersAreNotAChange() {
        XCTAssertNil(
            UpstreamChange.detect(
                oldURL: url, newURL: "https://dts.podtrac.com/redirect.mp3/cdn.example.com/show/ep1.mp3",
                oldLength: nil, newLength: nil, fileSize: nil))
        XCTAssertNil(
            UpstreamChange.detect(
                oldURL: "https://op3.dev/e/" + url, newURL: "https://chrt.fm/track/X/cdn.example.com/show/ep1.mp3",
                oldLength: nil, newLength: nil, fileSize: nil))
        XCTAssertNil(UpstreamChange.detect(oldURL: url, newURL: url + "?utm_source=rss", oldLength: nil, newLength: nil, fileSize: nil))
    }

    func testALengthChangeBeyondAdNoiseIsAChange() {
        let mb: Int64 = 1_000_000
        XCTAssertNil(UpstreamChange.detect(oldURL: url, newURL: url, oldLength: 50 * mb, newLength: 51 * mb, fileSize: 50 * mb), "an inserted ad")
        XCTAssertNil(
            UpstreamChange.detect(oldURL: url, newURL: url, oldLength: 5 * mb, newLength: 6_500_000, fileSize: 5 * mb),
            "30% but under 2 MB")
        XCTAssertEqual(
            UpstreamChange.detect(oldURL: url, newURL: url, oldLength: 50 * mb, newLength: 30 * mb, fileSize: 50 * mb),
            "its length changed from 50000000 to 30000000 bytes")
        XCTAssertNil(
            UpstreamChange.detect(oldURL: url, newURL: url, oldLength: 1, newLength: 30 * mb, fileSize: 30 * mb),
            "a placeholder length replaced by the real one: the file podq has is that long")
        XCTAssertNil(UpstreamChange.detect(oldURL: url, newURL: url, oldLength: 50 * mb, newLength: nil, fileSize: 50 * mb))
        XCTAssertNil(UpstreamChange.detect(oldURL: url, newURL: url, oldLength: nil, newLength: 30 * mb, fileSize: nil), "nothing to compare with")
    }

    func testWhatTheServerSaysOfTheFile() {
        let then = ResourceValidators(strongETag: "\"a\"", lastModified: "Sat, 21 Nov 2026 10:00:00 GMT", totalLength: 50_000)
        let later = "Sun, 22 Nov 2026 10:00:00 GMT"
        XCTAssertNil(UpstreamChange.detect(stored: then, size: 50_000, total: 50_000, lastModified: later), "the same length: not a re-upload we can tell")
        XCTAssertNil(
            UpstreamChange.detect(stored: then, size: 50_000, total: 51_000, lastModified: "Sat, 21 Nov 2026 10:00:00 GMT"),
            "another length, the same date: an inserted ad")
        XCTAssertEqual(
            UpstreamChange.detect(stored: then, size: 50_000, total: 51_000, lastModified: later),
            "the server's file changed on 2026-11-22 and is 51000 bytes; podq downloaded 50000")
        XCTAssertEqual(
            UpstreamChange.detect(stored: nil, size: 50_000_000, total: 20_000_000, lastModified: nil),
            "the server's file is 20000000 bytes; podq downloaded 50000000")
        XCTAssertNil(UpstreamChange.detect(stored: then, size: 50_000, total: nil, lastModified: later), "no length, no verdict")
    }
}
