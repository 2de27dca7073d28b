import PodqCore
import XCTest

@testable import PodqHTTP

/// Analytics prefixes are recognised by their shape: the URL inside each real-world form, and none
/// inside a URL that only looks busy.
final class TrackingPrefixTests: XCTestCase {
    private func inner(_ text: String) -> String? {
        guard let url = URL(string: text) else { return nil }
        return TrackingPrefix.innerURL(of: url)?.absoluteString
    }

    func testTheURLInsideEachKnownShape() {
        let cases: [(String, String)] = [
            (
                "https://dts.podtrac.com/redirect.mp3/traffic.megaphone.fm/ABC123.mp3?updated=1",
                "https://traffic.megaphone.fm/ABC123.mp3?updated=1"
            ),
            (
                "https://www.podtrac.com/pts/redirect.mp3/pdst.fm/e/chrt.fm/track/XYZ/traffic.libsyn.com/show/ep.mp3",
                "https://pdst.fm/e/chrt.fm/track/XYZ/traffic.libsyn.com/show/ep.mp3"
            ),
            ("https://pdst.fm/e/chrt.fm/track/XYZ/traffic.libsyn.com/show/ep.mp3", "https://chrt.fm/track/XYZ/traffic.libsyn.com/show/ep.mp3"),
            ("https://chrt.fm/track/XYZ/traffic.libsyn.com/show/ep.mp3", "https://traffic.libsyn.com/show/ep.mp3"),
            ("https://op3.dev/e/media.example.org/ep%201.mp3", "https://media.example.org/ep%201.mp3"),
            ("https://verifi.podscribe.com/rss/p/traffic.libsyn.com/secure/show/ep.mp3", "https://traffic.libsyn.com/secure/show/ep.mp3"),
            ("http://127.0.0.1:8080/prefix/e/127.0.0.2:8080/x.mp3", "http://127.0.0.2:8080/x.mp3"),
            ("https://t.example/track?u=https%3A%2F%2Fcdn.example.org%2Fa.mp3&ref=1", "https://cdn.example.org/a.mp3"),
            ("https://t.example/e/https%3A%2F%2Fcdn.example.org%2Fa.mp3", "https://cdn.example.org/a.mp3"),
            ("https://t.example/e/https://cdn.example.org/a.mp3", "https://cdn.example.org/a.mp3"),
            ("https://t.example/e/https:/cdn.example.org/a.mp3", "https://cdn.example.org/a.mp3"),
        ]
        for (published, expected) in cases {
            XCTAssertEqual(inner(published), expected, published)
        }
    }

    func testNoURLInsidePlainAddresses() {
        for plain in [
            "https://cdn.example.org/shows/ep.mp3",
            "https://cdn.example.org/redirect.mp3",
            "https://example.org/index.html/ep.mp3",
            "https://example.org/feed.xml",
            "https://example.org/v1.2/ep.mp3",
            "https://example.org/a/example.org",  // a host with nothing after it
            "https://example.org/",
            "Wps://ts://W/0 $,0/0 $, $ . ,tW/0 $,0/0 $, $ . .,)%s://t s: s,://t.st//@ /s:",  // FuzzHeaders: not an http(s) hop
            "ftp://files.example/pub/cdn.example.org/a.mp3",
        ] {
            XCTAssertNil(inner(plain), plain)
        }
    }

    func testHostShapes() {
        XCTAssertTrue(TrackingPrefix.isHost("traffic.megaphone.fm"))
        XCTAssertTrue(TrackingPrefix.isHost("127.0.0.1:8080"))
        XCTAssertTrue(TrackingPrefix.isHost("xn--bcher-kva.example"))
        XCTAssertFalse(TrackingPrefix.isHost("redirect.mp3"))
        XCTAssertFalse(TrackingPrefix.isHost("index.html"))
        XCTAssertFalse(TrackingPrefix.isHost("v1.2"))
        XCTAssertFalse(TrackingPrefix.isHost("host.example:99999x"))
        XCTAssertFalse(TrackingPrefix.isHost("-bad.example"))
        XCTAssertFalse(TrackingPrefix.isHost("256.1.1.1"))
    }
}
