import Foundation
import PodqTestSupport
import XCTest

extension TerminalTestCase {
    /// A feed of `count` episodes whose notes are HTML with entities, a list, a link and a script.
    func subscribe(count: Int, title: String = "Notes Show") async throws {
        serveFeed(count: count, title: title)
        let added = try await cli.run(["add", server.url("/static/notes.xml").absoluteString])
        XCTAssertEqual(added.exit.code, 0, added.out + added.err)
    }

    func serveFeed(count: Int, title: String = "Notes Show") {
        let items = (1...count).map { i in
            """
            <item><title>Episode \(i)</title><guid>n\(i)</guid><pubDate>Sat, \(10 + i) Oct 2026 10:00:00 GMT</pubDate>
            <itunes:duration>12:34</itunes:duration>
            <description><![CDATA[<p>Tom &amp; Jerry&#8217;s <b>guide</b>, part \(i).</p><ul><li>first point</li><li>second point</li></ul>
            <p>More at <a href="https://example.com/notes/\(i)">our site</a>.<script>alert("x")</script></p>]]></description>
            <enclosure url="/data/n\(i).mp3?size=300000&amp;seed=\(i)&amp;rate=100000" type="audio/mpeg" length="300000"/></item>
            """
        }.joined(separator: "\n")
        server.serve(
            Array(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>\(title)</title>
                \(items)
                </channel></rss>
                """.utf8), as: "notes.xml")
    }
}
