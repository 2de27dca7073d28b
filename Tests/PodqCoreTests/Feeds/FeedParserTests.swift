import PodqCore
import PodqTestSupport
import XCTest

/// One test per fixture, named after the edge case it holds (Tests/PodqCoreTests/Fixtures/feeds).
final class FeedParserTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/feeds")

    private func parse(_ name: String, base: String? = nil) throws -> Feed {
        try FeedParser.parse(file: Self.fixtures.appendingPathComponent(name).path, baseURL: base.flatMap(URL.init(string:)))
    }

    private func parseError(_ name: String) -> FeedError? {
        do {
            _ = try parse(name)
            return nil
        } catch {
            return error as? FeedError
        }
    }

    func testRSS2WithITunes() throws {
        let feed = try parse("rss2-itunes-basic.xml")
        XCTAssertEqual(feed.title, "The Basic Show", "the channel image's title does not win")
        XCTAssertEqual(feed.link, "https://example.org/show")
        XCTAssertEqual(feed.description, "A show about basics.")
        XCTAssertEqual(feed.author, "Ann Host")
        XCTAssertEqual(feed.imageURL, "https://example.org/cover.jpg")
        XCTAssertEqual(feed.episodes.count, 2)
        let two = feed.episodes[0]
        XCTAssertEqual(two.title, "Episode two")
        XCTAssertEqual(two.guid, "ep-2")
        XCTAssertEqual(two.link, "https://example.org/ep2")
        XCTAssertEqual(two.published.map { Int64($0.timeIntervalSince1970) }, 1_795_269_600)
        XCTAssertEqual(two.duration, 3723)
        XCTAssertEqual(two.episodeNumber, 2)
        XCTAssertEqual(two.season, 1)
        XCTAssertEqual(two.author, "Guest Two")
        XCTAssertEqual(two.imageURL, "https://example.org/ep2.jpg")
        XCTAssertEqual(two.enclosures, [Enclosure(url: "https://cdn.example.org/ep2.mp3", type: "audio/mpeg", length: 12_345_678)])
        XCTAssertEqual(feed.episodes[1].duration, 2730)
    }

    func testEnclosureWithoutLength() throws {
        let feed = try parse("rss-enclosure-without-length.xml")
        XCTAssertEqual(feed.episodes.map(\.enclosures.first?.length), [nil, nil, nil], "missing, zero and junk lengths are unknown")
        XCTAssertNil(feed.episodes[2].enclosures.first?.type)
    }

    func testItemWithoutEnclosureIsCountedNotReturned() throws {
        let feed = try parse("rss-item-without-enclosure.xml")
        XCTAssertEqual(feed.episodes.map(\.title), ["Real episode"])
        XCTAssertEqual(feed.itemsWithoutEnclosure, 1)
    }

    func testRelativeURLsResolveAgainstTheFeedURL() throws {
        let feed = try parse("rss-relative-urls.xml", base: "https://host.example/pods/feed.xml")
        XCTAssertEqual(feed.link, "https://host.example/home")
        XCTAssertEqual(feed.episodes[0].enclosures.first?.url, "https://host.example/pods/media/ep%201.mp3")
        XCTAssertEqual(feed.episodes[0].link, "https://host.example/pods/posts/1")
        XCTAssertEqual(feed.episodes[1].enclosures.first?.url, "https://host.example/abs/ep2.mp3")
        XCTAssertEqual(feed.episodes.count, 2, "an ftp: enclosure is not a downloadable episode")
    }

    func testCDATAAndContentEncoded() throws {
        let feed = try parse("rss-cdata-and-content-encoded.xml")
        XCTAssertEqual(feed.title, "Tom & Jerry <Live>")
        XCTAssertEqual(feed.episodes[0].title, "Part <1> & more")
        XCTAssertEqual(feed.episodes[0].description, "<p>Long <b>notes</b></p>", "content:encoded is preferred")
    }

    func testUndeclaredHTMLEntitiesAreReadLeniently() throws {
        let feed = try parse("rss-html-entities.xml")
        XCTAssertEqual(feed.title, "Café Talk")
        XCTAssertEqual(feed.episodes[0].title, "Fish & chips — … and &bogus; AT&T")
        XCTAssertEqual(feed.episodes[0].enclosures.first?.url, "https://e.org/e1.mp3?a=1&b=2")
    }

    func testDeclaredCharsetsAreHonoured() throws {
        let latin = try parse("rss-iso-8859-1.xml")
        XCTAssertEqual(latin.title, "Café Übersicht")
        XCTAssertEqual(latin.episodes[0].title, "Größe ñ")
        let windows = try parse("rss-windows-1252.xml")
        XCTAssertEqual(windows.title, "\u{201C}Quoted\u{201D} \u{2013} Show \u{20AC}")
        XCTAssertEqual(windows.episodes[0].title, "It\u{2019}s here")
    }

    func testRSS091() throws {
        let feed = try parse("rss-0.91.xml")
        XCTAssertEqual(feed.title, "Old School")
        XCTAssertEqual(feed.episodes.first?.enclosures.first?.url, "http://old.example/1.mp3")
    }

    func testRSS10RDFWithMediaContent() throws {
        let feed = try parse("rss-1.0-rdf.xml")
        XCTAssertEqual(feed.title, "RDF Cast")
        XCTAssertEqual(feed.episodes.first?.title, "First")
        XCTAssertEqual(feed.episodes.first?.published.map { Int64($0.timeIntervalSince1970) }, 1_793_523_600)
        XCTAssertEqual(feed.episodes.first?.enclosures, [Enclosure(url: "http://rdf.example/1.ogg", type: "audio/ogg", length: 777)])
    }

    func testAtomWithEnclosureLinks() throws {
        let feed = try parse("atom-enclosure.xml", base: "https://atom.example/feed")
        XCTAssertEqual(feed.title, "Atom Cast")
        XCTAssertEqual(feed.description, "Atom subtitle")
        XCTAssertEqual(feed.link, "https://atom.example/")
        XCTAssertEqual(feed.author, "Atom Author")
        XCTAssertEqual(feed.episodes.count, 2)
        XCTAssertEqual(feed.episodes[0].guid, "urn:uuid:1")
        XCTAssertEqual(feed.episodes[0].link, "https://atom.example/1")
        XCTAssertEqual(feed.episodes[0].enclosures, [Enclosure(url: "https://atom.example/1.m4a", type: "audio/mp4", length: 4242)])
        XCTAssertEqual(feed.episodes[0].published.map { Int64($0.timeIntervalSince1970) }, 1_795_093_200, "published wins over updated")
        XCTAssertEqual(feed.episodes[1].enclosures.first?.url, "https://atom.example/2.m4a")
        XCTAssertNotNil(feed.episodes[1].published, "updated when there is no published")
    }

    func testMediaContentIsAFallbackEnclosure() throws {
        let feed = try parse("rss-media-content-fallback.xml")
        XCTAssertEqual(
            feed.episodes[0].enclosures, [Enclosure(url: "https://e.org/m1.mp3", type: "audio/mpeg", length: 321)],
            "the image is skipped, the audio is used")
        XCTAssertEqual(feed.episodes[1].enclosures.map(\.url), ["https://e.org/m2.mp3"], "a real enclosure wins")
    }

    func testControlCharactersNeverSurvive() throws {
        let feed = try parse("rss-control-characters-in-title.xml")
        XCTAssertEqual(feed.title, "Evil Show")
        XCTAssertEqual(feed.episodes[0].title, "BellRings", "an unterminated OSC swallows the rest, as a terminal would")
    }

    func testBillionLaughsIsRefused() {
        guard let error = parseError("hostile-billion-laughs.xml") else { return XCTFail("parsed a billion laughs") }
        switch error {
        case .hostileEntities, .malformed: break
        default: XCTFail("\(error)")
        }
    }

    func testExternalEntitiesAreRefusedUnread() throws {
        XCTAssertEqual(parseError("hostile-external-entity.xml"), .hostileEntities)
        XCTAssertEqual(parseError("hostile-external-parameter-entity.xml"), .hostileEntities)
    }

    func testAnExternalEntityOnTheNetworkIsNeverFetched() async throws {
        let server = try await TestServer.start()
        let dir = TemporaryDirectory()
        let path = dir.file("feed.xml")
        for (name, doctype) in [
            ("entity", "<!DOCTYPE rss [ <!ENTITY x SYSTEM \"\(server.url("/entity.xml"))\"> ]>"),
            ("dtd", "<!DOCTYPE rss SYSTEM \"\(server.url("/feed.dtd"))\">"),
        ] {
            let xml =
                "<?xml version=\"1.0\"?>\n\(doctype)\n<rss version=\"2.0\"><channel><title>T\(name == "entity" ? " &x;" : "")</title>"
                + "<item><title>t</title><enclosure url=\"https://e.org/x.mp3\" length=\"1\"/></item></channel></rss>"
            try xml.write(toFile: path, atomically: true, encoding: .utf8)
            do {
                let feed = try FeedParser.parse(file: path)
                XCTAssertEqual(name, "dtd", "an external entity is refused")
                XCTAssertEqual(feed.title, "T", "an external DTD is ignored, the feed read")
            } catch {
                XCTAssertEqual(name, "entity")
                XCTAssertEqual(error, .hostileEntities)
            }
        }
        XCTAssertEqual(server.log.requests.count, 0, "nothing was fetched")
        await server.stop()
        dir.remove()
    }

    func testInternalEntitiesExpandAndAnUndeclaredPrefixIsTolerated() throws {
        let feed = try parse("rss-internal-entities-and-undeclared-prefix.xml")
        XCTAssertEqual(feed.title, "Tom & Jerry épisodes <live>")
        XCTAssertEqual(feed.episodes.map(\.title), ["One"])
        XCTAssertEqual(feed.episodes.first?.enclosures.first?.url, "https://e.org/1.mp3?a=1&b=2", "entities in attributes are decoded")
    }

    func testMalformedXMLWithNoChannelSaysWhere() {
        guard case .malformed(let line, let column, let reason) = parseError("malformed-no-channel.xml") else {
            return XCTFail("expected malformed")
        }
        XCTAssertEqual(line, 3)
        XCTAssertGreaterThan(column, 0)
        XCTAssertFalse(reason.isEmpty)
    }

    func testAWebPageIsNotAFeed() {
        XCTAssertEqual(parseError("not-a-feed.xml"), .notAFeed(root: "html"))
    }

    func testTooLargeAndMissingFiles() {
        XCTAssertThrowsError(try FeedParser.parse(file: Self.fixtures.appendingPathComponent("rss2-itunes-basic.xml").path, sizeLimit: 100)) {
            XCTAssertEqual($0 as? FeedError, .tooLarge(limit: 100))
        }
        XCTAssertThrowsError(try FeedParser.parse(file: "/nonexistent/feed.xml")) {
            guard case .unreadable = $0 as? FeedError else { return XCTFail("\($0)") }
        }
    }
}
