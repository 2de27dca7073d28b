import PodqTestSupport
import XCTest

@testable import PodqCore

/// A website's feed links, read from real files with libxml2's HTML parser.
final class WebPageFeedsTests: XCTestCase {
    private var dir: TemporaryDirectory!
    override func setUp() { dir = TemporaryDirectory("podq-webpage") }
    override func tearDown() { dir.remove() }

    private func file(_ text: String) throws -> String {
        let path = dir.file("page-\(UUID().uuidString).html")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testHTMLIsToldFromFeedsByTheFirstElement() throws {
        XCTAssertTrue(WebPageFeeds.looksLikeHTML(try file("\u{FEFF}  <!DOCTYPE html><p>x")))
        XCTAssertTrue(WebPageFeeds.looksLikeHTML(try file("<?xml version=\"1.0\"?><!-- a --><html><body/></html>")))
        XCTAssertTrue(WebPageFeeds.looksLikeHTML(try file("<head><link rel=alternate></head>")))
        XCTAssertFalse(
            WebPageFeeds.looksLikeHTML(try file("<?xml version=\"1.0\"?><rss><channel><description><![CDATA[<html>]]></description></channel></rss>")))
        XCTAssertFalse(WebPageFeeds.looksLikeHTML(try file("<!-- <html> --><feed xmlns=\"http://www.w3.org/2005/Atom\"/>")))
        XCTAssertFalse(WebPageFeeds.looksLikeHTML(try file("<?xml-stylesheet href=\"x.xsl\"?><rdf:RDF/>")))
    }

    func testAdvertisedFeedsComeFirstResolvedAgainstBase() throws {
        let page = try file(
            """
            <html><head><base href="https://cdn.example.org/show/">
            <link rel="alternate stylesheet" type="text/css" href="a.css">
            <LINK REL="Alternate" TYPE="application/rss+xml" TITLE="Audio \u{202E}feed" href="audio.xml">
            <link rel="alternate" type="application/atom+xml" href="//other.example/atom">
            <link rel="alternate" type="application/rss+xml" href="javascript:alert(1)">
            <link rel="alternate" type="application/rss+xml" href="audio.xml">
            </head><body><a href="/feed">RSS</a></body></html>
            """)
        let found = try WebPageFeeds.find(file: page, pageURL: URL(string: "https://show.example/")!)
        XCTAssertEqual(found.map(\.url), ["https://cdn.example.org/show/audio.xml", "https://other.example/atom"])
        XCTAssertEqual(found.first?.title, "Audio feed", "titles are cleaned")
    }

    func testWithoutAdvertisedFeedsLinksThatReadLikeFeedsAreTaken() throws {
        let page = try file("<p><a href='/about'>About</a> <a href='https://feeds.example.net/show'>Subscribe</a> <a href=\"rss.xml\">x</a>")
        let found = try WebPageFeeds.find(file: page, pageURL: URL(string: "http://show.example/ep/1")!)
        XCTAssertEqual(found.map(\.url), ["https://feeds.example.net/show", "http://show.example/ep/rss.xml"])
        XCTAssertEqual(try WebPageFeeds.find(file: try file("<p>nothing</p>"), pageURL: URL(string: "http://x.example/")!), [])
        // A "subscribe" button's podcast link names the feed, before links that only look like one.
        let buttons = try file(
            "<a href='/rss'>RSS</a> <a href='itpc://feeds.example.net/show.xml'>Apple Podcasts</a> <a href='podcast://https://s.example/f'>x</a>")
        XCTAssertEqual(
            try WebPageFeeds.find(file: buttons, pageURL: URL(string: "https://show.example/")!).map(\.url),
            ["http://feeds.example.net/show.xml", "https://s.example/f", "https://show.example/rss"])
    }
}
