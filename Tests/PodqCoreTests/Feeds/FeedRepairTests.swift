import PodqBase
import PodqCore
import PodqTestSupport
import XCTest

/// Hostile feeds are refused with the cap they broke; careless ones keep every episode and say what
/// was mended (issue 14).
final class FeedRepairTests: XCTestCase {
    private var dir: TemporaryDirectory!
    override func setUp() { dir = TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    private func write(_ bytes: [UInt8], _ name: String = "feed.xml") -> String {
        let path = dir.file(name)
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    private func rss(_ items: String, head: String = "") -> [UInt8] {
        Array("<?xml version=\"1.0\"?>\(head)<rss version=\"2.0\"><channel><title>Show</title>\(items)</channel></rss>".utf8)
    }

    private func item(_ title: String, _ n: Int) -> String {
        "<item><title>\(title)</title><enclosure url=\"http://h.example/\(n).mp3\"/></item>"
    }

    // MARK: Hostile: expansion caps

    func testOneEntityRepeatedManyTimesIsRefusedPastTheExpansionCap() {
        // 200 KB of feed that libxml2's own limits let through: 500 titles of 100 × 20 KB = 1 GB of text.
        let big = String(repeating: "A", count: 20_000)
        let items = (0..<500).map { item(String(repeating: "&e;", count: 100), $0) }.joined()
        let path = write(rss(items, head: "<!DOCTYPE rss [<!ENTITY e \"\(big)\">]>"))
        XCTAssertThrowsError(try FeedParser.parse(file: path)) {
            XCTAssertEqual($0 as? FeedError, .expansionTooLarge(limit: FeedLimits.standard.expansion))
        }
    }

    func testOneHugeFieldIsRefusedWithItsElement() {
        let path = write(rss(item(String(repeating: "&e;", count: 600), 1), head: "<!DOCTYPE rss [<!ENTITY e \"\(String(repeating: "B", count: 10_000))\">]>"))
        XCTAssertThrowsError(try FeedParser.parse(file: path)) {
            XCTAssertEqual($0 as? FeedError, .fieldTooLong(element: "title", limit: FeedLimits.standard.fieldBytes))
        }
        XCTAssertTrue(FeedError.fieldTooLong(element: "title", limit: 4 << 20).localizedDescription.contains("<title>"))
    }

    func testTooManyItemsIsRefusedAndAFewDeclaredEntitiesStillExpand() throws {
        let items = (0..<11).map { item("Tom &amp; &who;", $0) }.joined()
        let path = write(rss(items, head: "<!DOCTYPE rss [<!ENTITY who \"Jerry\">]>"))
        XCTAssertThrowsError(try FeedParser.parse(file: path, limits: FeedLimits(items: 10))) {
            XCTAssertEqual($0 as? FeedError, .tooManyItems(limit: 10))
        }
        let feed = try FeedParser.parse(file: path)
        XCTAssertEqual(feed.episodes.count, 11)
        XCTAssertEqual(feed.episodes[0].title, "Tom & Jerry")
        XCTAssertTrue(feed.repairs.isEmpty)
    }

    // MARK: Careless: one bad character never loses the feed

    func testControlBytesBadReferencesAndHTMLEntitiesAreRepairedAndCounted() throws {
        let items = [
            item("one \u{07} bell", 1), item("two &#x7; &#0; &#xD800; ref", 2), item("three &eacute;&nbsp;&hellip; &bogus; Tom & Jerry", 3),
            item("four <![CDATA[a & b &nbsp;]]>", 4),
        ].joined()
        let bytes = rss(items) + [0xFF]  // and a byte that is not UTF-8, after the root
        let feed = try FeedParser.parse(file: write(bytes))
        XCTAssertEqual(
            feed.episodes.map(\.title), ["one bell", "two ref", "three é … &bogus; Tom & Jerry", "four a & b &nbsp;"],
            "CDATA is text already: left as it is")
        XCTAssertEqual(feed.repairs.controlCharacters, 4)
        XCTAssertEqual(feed.repairs.entities, 5, "&eacute; &nbsp; &hellip; &bogus; and a bare &")
        XCTAssertEqual(feed.repairs.invalidBytes, 1)
        XCTAssertTrue(feed.repairs.summary.contains("4 control characters"), feed.repairs.summary)
    }

    func testDeclaredEntitiesSurviveTheRepairOfAnotherCharacter() throws {
        let path = write(rss(item("&who; &amp; &eacute;", 1), head: "<!DOCTYPE rss [<!ENTITY who \"Jerry\">]>"))
        XCTAssertEqual(try FeedParser.parse(file: path).episodes.first?.title, "Jerry & é")
    }

    func testBrokenMarkupIsReadWithRecoveryKeepingEveryEpisode() throws {
        let text = """
            <?xml version="1.0"?><rss version="2.0"><channel><title>Broken</title>
            <item><title>one<br></title><enclosure url="http://h.example/1.mp3"/></item>
            <item><title>two</title><enclosure url="http://h.example/2.mp3"/></item>
            <item><title>three <b>bold</i></title><enclosure url="http://h.example/3.mp3"/>
            <item><title>four</title><enclosure url="http://h.example/4.mp3"/></item>
            </channel>
            """
        let feed = try FeedParser.parse(file: write(Array(text.utf8)))
        XCTAssertEqual(feed.episodes.map(\.title), ["one", "two", "three bold", "four"])
        XCTAssertGreaterThan(feed.repairs.recoveredErrors, 0)
        XCTAssertTrue(feed.repairs.summary.contains("read past"), feed.repairs.summary)
    }

    func testADocumentWithNoChannelIsStillRefused() {
        XCTAssertThrowsError(try FeedParser.parse(file: write(Array("<?xml version=\"1.0\"?>\n<rss>\n<<oops".utf8)))) {
            guard case .malformed(let line, _, _)? = $0 as? FeedError else { return XCTFail("\($0)") }
            XCTAssertEqual(line, 3)
        }
    }

    // MARK: Episodes

    func testUntitledEpisodesAreNamedAfterTheirFileAndNonHTTPEnclosuresAreDropped() throws {
        let items = """
            <item><title>  </title><enclosure url="http://h.example/path/My%20Episode_12.mp3?x=1"/></item>
            <item><enclosure url="http://h.example/"/></item>
            <item><title>local</title><enclosure url="file:///etc/passwd"/></item>
            <item><title>path</title><enclosure url="/etc/passwd"/></item>
            <item><title>up</title><enclosure url="../../secret"/></item>
            """
        let local = try FeedParser.parse(file: write(rss(items)))
        XCTAssertEqual(local.episodes.map(\.title), ["My Episode_12", "Untitled episode"])
        XCTAssertEqual(local.repairs.droppedEnclosures, 3)
        XCTAssertEqual(local.itemsWithoutEnclosure, 3)
        XCTAssertTrue(local.repairs.summary.contains("dropped 3 enclosures that are not http(s)"), local.repairs.summary)
        let fetched = try FeedParser.parse(file: write(rss(items)), baseURL: URL(string: "https://h.example/a/b/feed.xml"))
        XCTAssertEqual(
            fetched.episodes.map { $0.enclosures[0].url }.suffix(2), ["https://h.example/etc/passwd", "https://h.example/secret"],
            "relative paths resolve against the feed's URL")
        XCTAssertEqual(fetched.repairs.droppedEnclosures, 1)
    }

    func testEveryFieldIsCleanedMediaTypeIncluded() throws {
        let items = """
            <item xmlns:media="http://search.yahoo.com/mrss/"><title>t</title><guid>g\u{202E}1</guid><author>a\u{85}b</author>
            <media:content url="http://h.example/\u{202E}x.mp3" type="audio/mpeg\u{202E}\u{1B}[31m"/></item>
            """
        let feed = try FeedParser.parse(file: write(rss(items)))
        let episode = try XCTUnwrap(feed.episodes.first)
        for text in [episode.guid ?? "", episode.author ?? "", episode.enclosures[0].type ?? "", episode.enclosures[0].url] {
            XCTAssertFalse(text.unicodeScalars.contains { SafeText.isUnsafe($0) }, text.debugDescription)
        }
        XCTAssertEqual(episode.enclosures[0].url, "http://h.example/%E2%80%AEx.mp3")
    }

    func testASchemeInCapitalsIsWrittenLowercase() throws {
        // FuzzFeed: `Https://` passed as a URL that no `https://` check recognised.
        let feed = try FeedParser.parse(file: write(rss("<item><title>t</title><enclosure url=\"HTTPS://h.example/A.mp3\"/></item>")))
        XCTAssertEqual(feed.episodes.first?.enclosures.first?.url, "https://h.example/A.mp3")
    }

    // MARK: Fuzzing findings (docs/DECISIONS.md)

    func testAnEntityBuiltFromAnotherIsRefusedAsItIsDeclaredEvenUnused() throws {
        // FuzzFeed: a billion laughs with one bad byte went through repair and took libxml2 1.3 s to refuse.
        XCTAssertThrowsError(try FeedParser.parse(file: FeedParserTests.fixtures.appendingPathComponent("hostile-nested-entities-with-a-bad-byte.xml").path)) {
            XCTAssertEqual($0 as? FeedError, .hostileEntities)
        }
        let unused = write(rss(item("One", 1), head: "<!DOCTYPE rss [<!ENTITY a \"x\"><!ENTITY b \"&a;&a;\">]>"))
        XCTAssertThrowsError(try FeedParser.parse(file: unused)) { XCTAssertEqual($0 as? FeedError, .hostileEntities) }
        let plain = write(rss(item("&a;", 1), head: "<!DOCTYPE rss [<!ENTITY a \"Tom &amp; Jerry &#233;\">]>"))
        XCTAssertEqual(try FeedParser.parse(file: plain).episodes.first?.title, "Tom & Jerry é", "predefined and character references are fine")
    }
}
