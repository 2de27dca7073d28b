import Foundation
import PodqTestSupport
import XCTest

/// `podq search` through the binary, against loopback servers that answer in each directory's documented
/// shape (``DirectoryTestServer``).
final class SearchCommandTests: CLITestCase {
    var directories: DirectoryTestServer!

    override func setUp() async throws {
        try await super.setUp()
        directories = try await DirectoryTestServer.start(catalogue: Self.catalogue)
    }

    override func tearDown() async throws {
        await directories.stop()
        try await super.tearDown()
    }

    static let latest = Date(timeIntervalSince1970: 1_764_000_000)
    static let catalogue: [DirectoryTestServer.Show] = [
        .init("The History of Rome", author: "Mike Duncan", feed: "https://feeds.example.org/rome", episodes: 189, latest: latest),
        .init("Revolutions", author: "Mike Duncan", feed: "https://feeds.example.org/revolutions", episodes: 300),
        .init("Rome Daily News", author: "Radio Roma", feed: "https://news.example.net/rome.xml", episodes: 12),
    ]

    private func writeConfig(_ extra: String = "") throws {
        try FileManager.default.createDirectory(atPath: cli.home, withIntermediateDirectories: true)
        try (directories.configLines + extra).write(toFile: cli.home + "/config", atomically: true, encoding: .utf8)
    }

    private func json(_ text: String) throws -> [[String: Any]] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]], text)
    }

    func testEveryDirectoryIsAskedAndAShowIsOneRowWithItsSources() async throws {
        // One show, listed by the three under three spellings of its feed URL: one row.
        directories.setCatalogue(.gpodder, [.init("History of Rome", author: "Mike Duncan", feed: "http://www.feeds.example.org/rome/", subscribers: 5400)])
        try writeConfig()
        let run = try await cli.run(["search", "--json", "rome"])
        XCTAssertEqual(run.exit.code, 0, run.err)
        XCTAssertEqual(run.err, "")
        let shows = try json(run.out)
        let rome = try XCTUnwrap(shows.first { ($0["feedUrl"] as? String) == "https://feeds.example.org/rome" }, run.out)
        XCTAssertEqual(rome["title"] as? String, "The History of Rome")
        XCTAssertEqual(rome["author"] as? String, "Mike Duncan")
        XCTAssertEqual(rome["episodes"] as? Int, 189)
        XCTAssertEqual(rome["sources"] as? [String], ["itunes", "gpodder", "podcastindex"])
        XCTAssertEqual(shows.filter { ($0["feedUrl"] as? String)?.contains("feeds.example.org/rome") == true }.count, 1, run.out)
        // Found by three, it ranks above the show only two directories know.
        XCTAssertEqual(shows.first?["feedUrl"] as? String, "https://feeds.example.org/rome", run.out)
        XCTAssertEqual(Set(shows.compactMap { $0["feedUrl"] as? String }), ["https://feeds.example.org/rome", "https://news.example.net/rome.xml"])
        // Each directory was asked as its API documents, Podcast Index with its login headers.
        let itunes = try XCTUnwrap(directories.requests(.itunes).first)
        XCTAssertEqual(itunes.query["term"], "rome")
        XCTAssertEqual(itunes.query["media"], "podcast")
        XCTAssertEqual(itunes.query["entity"], "podcast")
        XCTAssertEqual(directories.requests(.gpodder).first?.query["q"], "rome")
        let index = try XCTUnwrap(directories.requests(.podcastindex).first)
        XCTAssertEqual(index.header("X-Auth-Key"), "PIKEY")
        XCTAssertNotNil(index.header("Authorization"))
        // The secret is the user's, in their config: never in what podq prints or logs.
        XCTAssertFalse((run.out + run.err).contains("pi-secret"))
        XCTAssertFalse((try? String(contentsOfFile: cli.home + "/podq.log", encoding: .utf8))?.contains("pi-secret") ?? false)
        XCTAssertFalse(index.uri.contains("pi-secret"))
    }

    func testThePlainListingShowsTheFactsAndHowToSubscribe() async throws {
        try writeConfig()
        let run = try await cli.run(["search", "history", "of", "rome"])
        XCTAssertEqual(run.exit.code, 0, run.err)
        let lines = run.out.components(separatedBy: "\n")
        XCTAssertEqual(lines.first, "1  The History of Rome", run.out)
        XCTAssertEqual(lines[1], "   by Mike Duncan · 189 episodes · latest 2025-11-24 · iTunes, gpodder.net, Podcast Index", run.out)
        XCTAssertEqual(lines[2], "   https://feeds.example.org/rome")
        XCTAssertTrue(run.out.contains("podq add <feed URL>"), run.out)
    }

    func testAResultWithoutAUsableFeedIsDroppedAndTextIsCleaned() async throws {
        directories.setCatalogue(
            .itunes,
            [
                .init("Rome without feed", feed: nil),
                .init("Rome as script", feed: "javascript:alert(1)"),
                .init("Rome as a file", feed: "file:///etc/passwd"),
                .init("Rome with a login", feed: "https://user:secret@feeds.example.org/private"),
                .init("Rome spaced", feed: "https://feeds.example.org/a b"),
                .init("Rome empty", feed: ""),
                .init("Rome \u{1B}[31mred\u{1B}[0m \u{202E}kcab", author: "Evil\u{7}\nCorp", feed: "https://ok.example.org/rome"),
            ])
        directories.setCatalogue(.gpodder, [.init("Rome on gpodder", feed: "javascript:void(0)"), .init("Rome ftp", feed: "ftp://x.example/f")])
        directories.setCatalogue(.podcastindex, [])
        try writeConfig()
        let run = try await cli.run(["search", "--json", "rome"])
        XCTAssertEqual(run.exit.code, 0, run.err)
        let shows = try json(run.out)
        XCTAssertEqual(shows.compactMap { $0["feedUrl"] as? String }, ["https://ok.example.org/rome"], run.out)
        // COMMANDS.md: in JSON, control characters are kept as \uXXXX escapes (no data lost, and the
        // JSON itself carries no raw ESC, BEL or bidi override); in text they are removed.
        let title = try XCTUnwrap(shows.first?["title"] as? String)
        XCTAssertEqual(title, "Rome \u{1B}[31mred\u{1B}[0m \u{202E}kcab", run.out)
        XCTAssertEqual(shows.first?["author"] as? String, "Evil\u{7} Corp")
        XCTAssertFalse(run.out.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{7}" || $0 == "\u{202E}" }, run.out)
        XCTAssertTrue(run.out.contains(#"\u001b[31mred"#) && run.out.contains(#"\u202e"#), run.out)
        let plain = try await cli.run(["search", "rome"])
        XCTAssertFalse(plain.out.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{7}" || $0 == "\u{202E}" }, plain.out)
        XCTAssertFalse(plain.out.contains("secret"))
    }

    func testOneDirectoryDownTheOthersStillAnswerWithANote() async throws {
        directories.set(.gpodder, .down)
        try writeConfig()
        let run = try await cli.run(["search", "--json", "revolutions"])
        XCTAssertEqual(run.exit.code, 0, run.err)
        XCTAssertEqual(try json(run.out).first?["sources"] as? [String], ["itunes", "podcastindex"])
        XCTAssertTrue(run.err.contains("gpodder.net could not be asked: HTTP 503"), run.err)
        XCTAssertTrue(run.err.contains("these results are iTunes and Podcast Index's"), run.err)
    }

    func testASlowDirectoryIsLeftAtItsDeadline() async throws {
        directories.set(.itunes, .slow(seconds: 60))
        try writeConfig("fetch-timeout = 2\n")
        // Were the slow one waited for, the run would still be going after 20 s, and be killed.
        let run = try await cli.run(["search", "revolutions"], timeout: 20)
        XCTAssertEqual(run.exit.code, 0, run.err)
        XCTAssertTrue(run.out.contains("https://feeds.example.org/revolutions"), run.out)
        XCTAssertTrue(run.err.contains("iTunes did not answer within 2 s"), run.err)
    }

    func testEveryDirectoryDownIsExitOneInWordsAtOnce() async throws {
        directories.set(.itunes, .down)
        directories.set(.gpodder, .garbage)
        // Podcast Index: nobody listens there.
        let closed = try await TestServer.start()
        let refused = closed.url("/api").absoluteString
        await closed.stop()
        try writeConfig("search-podcastindex-url = \(refused)\n")
        let run = try await cli.run(["search", "rome"], timeout: 20)
        XCTAssertEqual(run.exit.code, 1, run.out)
        XCTAssertEqual(run.out, "")
        XCTAssertTrue(run.err.contains("no directory could be searched"), run.err)
        XCTAssertTrue(run.err.contains("iTunes could not be asked: HTTP 503"), run.err)
        XCTAssertTrue(run.err.contains("gpodder.net answered something podq cannot read (not JSON)"), run.err)
        XCTAssertTrue(run.err.contains("Podcast Index could not be asked"), run.err)
        XCTAssertEqual(directories.requests(.itunes).count, 1, "no retries")
    }

    func testPodcastIndexNeedsItsKeyAndAWrongOneIsRefused() async throws {
        try FileManager.default.createDirectory(atPath: cli.home, withIntermediateDirectories: true)
        let endpoints = DirectoryTestServer.Name.allCases.map { "search-\($0.rawValue)-url = \(directories.endpoint($0))" }.joined(separator: "\n")
        // Without a key, and not asked for: only the two keyless directories.
        try (endpoints + "\n").write(toFile: cli.home + "/config", atomically: true, encoding: .utf8)
        var run = try await cli.run(["search", "--json", "revolutions"])
        XCTAssertEqual(try json(run.out).first?["sources"] as? [String], ["itunes", "gpodder"], run.err)
        XCTAssertEqual(directories.requests(.podcastindex).count, 0)
        // Asked for by name without a key: said how to get one.
        try (endpoints + "\nsearch-providers = podcastindex\n").write(toFile: cli.home + "/config", atomically: true, encoding: .utf8)
        run = try await cli.run(["search", "revolutions"])
        XCTAssertEqual(run.exit.code, 1)
        XCTAssertTrue(run.err.contains("Podcast Index needs a key"), run.err)
        // A wrong secret: refused by the directory, said, and never printed.
        try (endpoints + "\nsearch-providers = podcastindex itunes\npodcastindex-key = PIKEY\npodcastindex-secret = wrong-secret-42\n").write(
            toFile: cli.home + "/config", atomically: true, encoding: .utf8)
        run = try await cli.run(["search", "--json", "revolutions"])
        XCTAssertEqual(run.exit.code, 0, run.err)
        XCTAssertTrue(run.err.contains("Podcast Index could not be asked: HTTP 401"), run.err)
        XCTAssertEqual(try json(run.out).first?["sources"] as? [String], ["itunes"])
        XCTAssertFalse((run.out + run.err).contains("wrong-secret-42"))
    }

    /// Podcast Index's key goes to its own origin only: a redirect to another host is followed without it.
    func testPodcastIndexsKeyDoesNotFollowARedirectElsewhere() async throws {
        let elsewhere = try await TestServer.start(host: "127.0.0.2")
        defer { Task { await elsewhere.stop() } }
        server.move("/api/1.0/search/byterm", to: elsewhere.url("/api/1.0/search/byterm"))
        try writeConfig("search-providers = podcastindex\nsearch-podcastindex-url = \(server.url("/api/1.0/search/byterm").absoluteString)\n")
        let run = try await cli.run(["search", "rome"])
        XCTAssertEqual(run.exit.code, 1, run.out)
        XCTAssertTrue(run.err.contains("Podcast Index could not be asked: HTTP 404"), run.err)
        let arrived = try XCTUnwrap(elsewhere.log.requests.first, "the redirect was followed")
        XCTAssertNil(arrived.header("X-Auth-Key"))
        XCTAssertNil(arrived.header("Authorization"))
        XCTAssertNil(arrived.header("X-Auth-Date"))
        XCTAssertEqual(server.log.requests.first?.header("X-Auth-Key"), "PIKEY", "its own origin had it")
    }

    func testSearchProvidersChoosesTheDirectoriesAndLimitCaps() async throws {
        try writeConfig("search-providers = gpodder\n")
        let run = try await cli.run(["search", "--json", "--limit", "1", "mike", "duncan"])
        XCTAssertEqual(run.exit.code, 0, run.err)
        XCTAssertEqual(try json(run.out).count, 1, run.out)
        XCTAssertEqual(directories.requests(.itunes).count, 0)
        XCTAssertEqual(directories.requests(.podcastindex).count, 0)
        XCTAssertEqual(directories.requests(.gpodder).first?.query["q"], "mike duncan")
        let none = try await cli.run(["search", "nothing", "like", "this"])
        XCTAssertEqual(none.exit.code, 0)
        XCTAssertTrue(none.out.hasPrefix("No podcast found for “nothing like this” (asked gpodder.net)."), none.out)
        let empty = try await cli.run(["search", "--json", "nothing", "like", "this"])
        XCTAssertEqual(empty.out, "[]\n")
    }

    func testAddWithWordsPointsToSearch() async throws {
        for words in [["history", "of", "rome"], ["radiolab"]] {
            let run = try await cli.run(["add"] + words)
            XCTAssertEqual(run.exit.code, 2, run.err)
            XCTAssertTrue(run.err.contains("podq search \(words.joined(separator: " "))"), run.err)
        }
    }
}
