import Foundation
import PodqTestSupport
import XCTest

@testable import PodqCore

/// The hashes a feed publishes for its files, matched to the right enclosure.
final class FeedIntegrityTests: XCTestCase {
    private func parse(_ items: String) throws -> Feed {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0" xmlns:media="http://search.yahoo.com/mrss/"
                 xmlns:old="https://github.com/Podcastindex-org/podcast-namespace/blob/main/docs/1.0.md">
            <channel><title>T</title>\(items)</channel></rss>
            """
        try xml.write(toFile: dir.file("feed.xml"), atomically: true, encoding: .utf8)
        return try FeedParser.parse(file: dir.file("feed.xml"), baseURL: URL(string: "https://example.com/feed.xml"))
    }

    private let sha256 = Data(repeating: 7, count: 32).base64EncodedString()
    private let sha384 = Data(repeating: 8, count: 48).base64EncodedString()
    private let md5 = String(repeating: "ab", count: 16)

    func testIntegrityOfAnAlternateEnclosureGoesToTheEnclosureItsSourceNames() throws {
        let feed = try parse(
            """
            <item><title>a</title><enclosure url="https://cdn.example.com/a.mp3" type="audio/mpeg" length="10"/>
              <podcast:alternateEnclosure type="audio/opus" length="5">
                <podcast:source uri="https://cdn.example.com/a.opus"/>
                <podcast:integrity type="sri" value="sha256-\(sha256)"/>
              </podcast:alternateEnclosure>
              <podcast:alternateEnclosure type="audio/mpeg" length="10" default="true">
                <podcast:source uri="/a.mp3"/><podcast:source uri="https://cdn.example.com/a.mp3"/>
                <podcast:integrity type="sri" value="sha384-\(sha384)"/>
                <podcast:integrity type="pgp-signature" value="-----BEGIN PGP SIGNATURE-----"/>
              </podcast:alternateEnclosure>
            </item>
            """)
        let digests = try XCTUnwrap(feed.episodes.first?.preferredEnclosure?.digests)
        XCTAssertEqual(digests.map(\.provenance), ["sri-sha384"], "the opus file's hash is not the mp3's; a PGP signature is not a hash")
    }

    func testIntegrityInTheItemAppliesToItsOnlyFileAndTheOldNamespaceIsRead() throws {
        let feed = try parse(
            """
            <item><title>a</title><enclosure url="/a.mp3" length="10"/><old:integrity type="sri" value="sha256-\(sha256)"/></item>
            <item><title>b</title><enclosure url="/b.mp3"/><enclosure url="/b.ogg"/><podcast:integrity type="sri" value="sha256-\(sha256)"/></item>
            """)
        XCTAssertEqual(feed.episodes[0].enclosures[0].digests.map(\.provenance), ["sri-sha256"])
        XCTAssertEqual(feed.episodes[1].enclosures.map(\.digests.count), [0, 0], "with two files, a hash for the item names neither")
    }

    func testMediaHashesInAContentOrForTheItem() throws {
        let feed = try parse(
            """
            <item><title>a</title>
              <media:group>
                <media:content url="https://example.com/a.mp3" type="audio/mpeg"><media:hash algo="md5">\(md5)</media:hash></media:content>
                <media:content url="https://example.com/a.m4a" type="audio/mp4"><media:hash algo="sha-1">\(String(repeating: "cd", count: 20))</media:hash></media:content>
              </media:group>
            </item>
            <item><title>b</title><enclosure url="/b.mp3"/><media:hash>\(md5)</media:hash><media:hash algo="md5">short</media:hash></item>
            """)
        XCTAssertEqual(feed.episodes[0].enclosures.map { $0.digests.map(\.provenance) }, [["media-hash-md5"], ["media-hash-sha1"]])
        XCTAssertEqual(feed.episodes[1].enclosures[0].digests.map(\.provenance), ["media-hash-md5"], "md5 by default; a bad value is left out")
    }
}
