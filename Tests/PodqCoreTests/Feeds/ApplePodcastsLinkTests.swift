import XCTest

@testable import PodqCore

/// Apple Podcasts links as people copy them, and the lookup's answer.
final class ApplePodcastsLinkTests: XCTestCase {
    func testTheIDOfEachForm() {
        let cases: [(String, String?)] = [
            ("https://podcasts.apple.com/us/podcast/the-daily/id1200361736", "1200361736"),
            ("https://podcasts.apple.com/gb/podcast/the-daily/id1200361736?i=1000650000000", "1200361736"),
            ("https://podcasts.apple.com/podcast/id1200361736", "1200361736"),
            ("https://itunes.apple.com/us/podcast/the-daily/id1200361736?mt=2", "1200361736"),
            ("https://itunes.apple.com/podcast?id=42", "42"),
            ("https://example.org/podcast/id1200361736", nil),
            ("https://podcasts.apple.com/us/browse", nil),
            ("https://podcasts.apple.com/us/podcast/idea-show/idabc", nil),
        ]
        for (link, id) in cases {
            XCTAssertEqual(ApplePodcastsLink.podcastID(of: URL(string: link)!), id, link)
        }
    }

    func testTheFeedInALookup() {
        let answer = #"{"resultCount":2,"results":[{"kind":"podcast"},{"feedUrl":"https://feeds.example.org/show"}]}"#
        XCTAssertEqual(ApplePodcastsLink.feedURL(inLookup: Data(answer.utf8)), "https://feeds.example.org/show")
        XCTAssertNil(ApplePodcastsLink.feedURL(inLookup: Data(#"{"results":[{"feedUrl":"file:///etc/passwd"}]}"#.utf8)))
        XCTAssertNil(ApplePodcastsLink.feedURL(inLookup: Data("not json".utf8)))
    }
}
