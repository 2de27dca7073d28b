import Foundation
import PodqServer
import XCTest

@testable import PodqCore

/// Reading each directory's answers, and merging them: the shapes the APIs document, the shapes they
/// send when a field is missing or of another type, and hostile ones.
final class DirectoryTests: XCTestCase {
    private func shows(_ directory: Directory, _ json: String) throws -> [DirectoryShow] {
        try directory.shows(in: Array(json.utf8))
    }

    func testEachDirectorysShape() throws {
        let itunes = try shows(
            .itunes,
            #"{"resultCount":2,"results":[{"wrapperType":"track","kind":"podcast","collectionName":"A Show","artistName":"Maker","feedUrl":"https://f.example/a","trackCount":12,"releaseDate":"2026-11-20T08:00:00Z"},{"wrapperType":"track","kind":"podcast-episode","collectionName":"An episode","feedUrl":"https://f.example/e"}]}"#
        )
        XCTAssertEqual(itunes.count, 1, "an episode is not a show")
        XCTAssertEqual(itunes[0].title, "A Show")
        XCTAssertEqual(itunes[0].author, "Maker")
        XCTAssertEqual(itunes[0].episodes, 12)
        XCTAssertEqual(itunes[0].latest, Date(timeIntervalSince1970: 1_795_161_600))
        XCTAssertEqual(itunes[0].sources, ["itunes"])
        let gpodder = try shows(
            .gpodder, #"[{"url":"http://f.example/b","title":"B","author":null,"description":"<p>About &amp; more</p>","subscribers":"42"}]"#)
        XCTAssertEqual(gpodder.first?.description, "About & more")
        XCTAssertEqual(gpodder.first?.subscribers, 42, "a number sent as text")
        XCTAssertEqual(gpodder.first?.author, "")
        let index = try shows(
            .podcastindex,
            #"{"status":"true","feeds":[{"title":"C","url":"","originalUrl":"https://f.example/c","ownerName":"Owner","episodeCount":3,"newestItemPubdate":1763625600,"description":"x"}]}"#
        )
        XCTAssertEqual(index.first?.feedURL, "https://f.example/c", "originalUrl when url is empty")
    }

    func testAnswersThatAreNotTheDirectorysAreSaid() {
        XCTAssertThrowsError(try shows(.itunes, "<html>")) { XCTAssertEqual($0 as? DirectoryError, .badAnswer(.itunes, detail: "not JSON")) }
        XCTAssertThrowsError(try shows(.gpodder, #"{"error":"x"}"#)) { XCTAssertEqual($0 as? DirectoryError, .badAnswer(.gpodder, detail: "not a list")) }
        XCTAssertThrowsError(try shows(.podcastindex, #"{"status":"false","description":"Authorization \u001b[31mfailed"}"#)) {
            XCTAssertEqual($0 as? DirectoryError, .badAnswer(.podcastindex, detail: "Authorization failed"))
        }
    }

    /// Whatever bytes a directory sends, reading them ends in shows or an error: never a crash.
    func testRandomAnswersNeverCrash() {
        var random = SeededGenerator(seed: 33)
        let pieces = [
            "{", "}", "[", "]", ",", ":", "\"results\"", "\"feeds\"", "\"url\"", "\"feedUrl\"", "\"title\"", "null", "1e999", "-1", "\"\\u0000\"",
            "\"javascript:x\"", "\"https://a.example/f\"", "true", "\"status\"", "\"false\"", "3.5", "\"trackCount\"", "\"episodeCount\"",
        ]
        for _ in 0..<3000 {
            let text = (0..<Int.random(in: 1...24, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            for directory in Directory.allCases {
                if let found = try? directory.shows(in: Array(text.utf8)) {
                    for show in found { XCTAssertNotNil(DirectoryShow.usableFeedURL(show.feedURL), text) }
                }
            }
        }
    }

    func testOnlyUsableFeedURLsAreKept() {
        let usable = ["https://f.example/a", "http://f.example:8080/a?b=c", "  https://f.example/trimmed  "]
        for url in usable { XCTAssertNotNil(DirectoryShow.usableFeedURL(url), url) }
        let unusable = [
            nil, "", "javascript:alert(1)", "JAVASCRIPT:alert(1)", "file:///etc/passwd", "ftp://f.example/a", "data:text/xml,<rss/>", "https:///nohost",
            "https://user:pw@f.example/a", "https://f.example/a b", "https://f.example/\u{1B}[31m", "https://f.example/\u{202E}x", "//f.example/a",
            "f.example/a", "https://f.example/" + String(repeating: "a", count: 2100), "http:\\\\f.example\\a",
        ]
        for url in unusable { XCTAssertNil(DirectoryShow.usableFeedURL(url), url ?? "nil") }
    }

    func testOneShowUnderManySpellingsIsOneRow() {
        let spellings = [
            "https://feeds.example.org/show", "http://feeds.example.org/show/", "https://www.feeds.example.org/show", "https://FEEDS.example.org/show",
        ]
        XCTAssertEqual(Set(spellings.map(DirectoryShow.mergeKey)).count, 1)
        XCTAssertNotEqual(DirectoryShow.mergeKey("https://f.example/show"), DirectoryShow.mergeKey("https://f.example/Show"), "a path's case is its own")
        XCTAssertNotEqual(DirectoryShow.mergeKey("https://f.example/feed?id=1"), DirectoryShow.mergeKey("https://f.example/feed?id=2"))
    }

    func testMergingRanksAndCombines() {
        let a = [
            DirectoryShow(title: "Rome Weekly", feedURL: "http://f.example/weekly", episodes: 5, sources: ["itunes"]),
            DirectoryShow(title: "History of Rome", feedURL: "http://f.example/rome", episodes: 10, sources: ["itunes"]),
        ]
        let b = [
            DirectoryShow(
                title: "The History of Rome (old)", author: "Mike", feedURL: "https://f.example/rome/", episodes: 12, description: "About", subscribers: 9,
                sources: ["gpodder"])
        ]
        let merged = DirectorySearch.merge([a, b], words: "history of rome")
        XCTAssertEqual(merged.map(\.title), ["History of Rome", "Rome Weekly"], "found twice and named by the words: first")
        XCTAssertEqual(merged[0].feedURL, "https://f.example/rome/", "https over http")
        XCTAssertEqual(merged[0].episodes, 12)
        XCTAssertEqual(merged[0].author, "Mike")
        XCTAssertEqual(merged[0].description, "About")
        XCTAssertEqual(merged[0].sources, ["itunes", "gpodder"])
        // An exact title wins over a better place in one list.
        let exact = DirectorySearch.merge([[a[0], DirectoryShow(title: "Serial", feedURL: "https://s.example/f", sources: ["itunes"])]], words: "serial")
        XCTAssertEqual(exact.first?.title, "Serial")
    }

    func testPodcastIndexsLogin() throws {
        let request = try XCTUnwrap(
            Directory.podcastindex.request(
                words: "a+b c", limit: 5, endpoint: "https://api.example/api/1.0/search/byterm", key: .init(key: "KEY", secret: "SECRET"),
                now: Date(timeIntervalSince1970: 1_700_000_000)))
        XCTAssertEqual(request.headers.first(name: "X-Auth-Key"), "KEY")
        XCTAssertEqual(request.headers.first(name: "X-Auth-Date"), "1700000000")
        // sha1("KEYSECRET1700000000"), computed by sha1sum.
        XCTAssertEqual(request.headers.first(name: "Authorization"), "5f8983664e541a83aaae7f3a47f1957fbca48aec")
        XCTAssertEqual(request.url.query, "q=a%2Bb%20c&max=5")
        XCTAssertFalse(request.url.absoluteString.contains("SECRET"))
    }

    /// A directory that never answers is left at the deadline, not waited for.
    func testWithinADeadline() async {
        let slow = await DirectorySearch.within(.milliseconds(50)) { () async -> Int in
            // Never answers: waits on a stream nothing writes to, until the deadline cancels it.
            let (never, continuation) = AsyncStream<Int>.makeStream()
            for await _ in never {}
            withExtendedLifetime(continuation) {}
            return 1
        }
        XCTAssertNil(slow)
        let quick = await DirectorySearch.within(.seconds(30)) { () async -> Int in 7 }
        XCTAssertEqual(quick, 7)
    }
}
