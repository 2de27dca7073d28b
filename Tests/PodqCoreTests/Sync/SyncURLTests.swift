import PodqCore
import XCTest

/// URLs as sync servers compare them, and the forms an episode's URL may reach a server in.
final class SyncURLTests: XCTestCase {
    func testWhatServersRewriteComparesEqual() {
        let same = [
            "http://Feeds.Example.com/show.xml", "https://feeds.example.com/show.xml", "http://user:pw@feeds.example.com/show.xml",
            "http://feeds.example.com:80/show.xml", "feed://feeds.example.com/show.xml", " http://feeds.example.com/show.xml#top",
        ]
        for url in same { XCTAssertEqual(SyncURL.key(url), SyncURL.key(same[0]), url) }
        XCTAssertEqual(SyncURL.key("http://a.example"), SyncURL.key("http://a.example/"))
        XCTAssertEqual(SyncURL.key("http://a.example/a%3Ab?x=a+b"), SyncURL.key("http://a.example/a:b?x=a%20b"))
        XCTAssertNotEqual(SyncURL.key("http://a.example/get.php?id=1"), SyncURL.key("http://a.example/get.php?id=2"))
        XCTAssertNotEqual(SyncURL.key("http://a.example:8080/f"), SyncURL.key("http://a.example/f"))
    }

    /// The URL inside each analytics prefix (as published, or escaped by a server), and the URL without
    /// tracking parameters, are aliases of the episode.
    func testAnEpisodeIsKnownThroughItsTrackingPrefixes() {
        let media = "https://cdn.example.com/ep/1.mp3"
        let forms = [
            "https://dts.podtrac.com/redirect.mp3/cdn.example.com/ep/1.mp3",
            "https://op3.dev/e/dts.podtrac.com/redirect.mp3/cdn.example.com/ep/1.mp3",
            "https://chrt.fm/track/ABC123/cdn.example.com/ep/1.mp3",
            "https://dts.podtrac.com/redirect.mp3/cdn.example.com%3A443/ep/1.mp3",
            "https://cdn.example.com/ep/1.mp3?utm_source=feed",
        ]
        let key = SyncURL.key(media)
        for form in forms { XCTAssertTrue(SyncURL.aliases(of: form).contains(key), form) }
        XCTAssertFalse(SyncURL.aliases(of: "https://cdn.example.com/ep/2.mp3").contains(key))
    }
}
