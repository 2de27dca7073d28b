import Foundation
import PodqBase
import PodqCore
import PodqHTTP
import PodqSession
import PodqTestSupport
import XCTest

/// Issue 15 through the real binary: the podcast web as users meet it. "Another host" is another
/// loopback address (127.0.0.2), where nothing listens: a dead tracker.
final class RealWebCommandTests: CLITestCase {
    private var host: String { "127.0.0.1:\(server.port)" }

    private func json(_ args: [String]) async throws -> Any {
        let (_, out, err) = try await cli.run(args)
        return try XCTUnwrap(try? JSONSerialization.jsonObject(with: Data(out.utf8)), out + err)
    }

    private func episodeURLs() async throws -> [String] {
        let value = try await json(["episodes", "--json"])
        let list = try XCTUnwrap(value as? [[String: Any]])
        return list.compactMap { $0["url"] as? String }
    }

    private func rss(_ items: String, channel: String = "", attributes: String = "") -> [UInt8] {
        Array(
            """
            <?xml version="1.0"?>
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:atom="http://www.w3.org/2005/Atom" \
            xmlns:media="http://search.yahoo.com/mrss/"\(attributes)><channel><title>Show</title>\(channel)
            \(items)
            </channel></rss>
            """.utf8)
    }

    private func writeConfig(_ text: String) throws {
        try FileManager.default.createDirectory(atPath: cli.home, withIntermediateDirectories: true)
        try text.write(toFile: cli.home + "/config", atomically: true, encoding: .utf8)
    }

    // MARK: 1. Tracking-prefix chains

    func testADeadTrackerInTheChainIsSkippedAndEveryHopIsLogged() async throws {
        // prefix (here) → a tracker on 127.0.0.2 (dead) → the file (here).
        let published = "http://\(host)/prefix/e/127.0.0.2:\(server.port)/track/ABC123/\(host)/data/ep.mp3?size=40000&seed=3"
        let (exit, _, err) = try await cli.run(["download", "--download-dir", dir.file("out"), published])
        XCTAssertEqual(exit.code, 0, err)
        XCTAssertEqual(FileHash.sha256(path: dir.file("out/ep.mp3")), PatternSource(seed: 3, length: 40_000).sha256)
        XCTAssertEqual(
            server.log.requests.first?.path, "/prefix/e/127.0.0.2:\(server.port)/track/ABC123/\(host)/data/ep.mp3",
            "the published URL is fetched first: the publisher's analytics count it")
        let log = try String(contentsOfFile: cli.home + "/podq.log", encoding: .utf8)
        XCTAssertTrue(log.contains("a hop of the chain failed; going on from the URL inside it"), log)
        XCTAssertTrue(log.contains("127.0.0.2"), log)
    }

    func testAFailingHopOfEveryShapeFallsThroughToTheURLInside() async throws {
        let inner = "\(host)/data/x.mp3?size=3000&seed=4"
        let encoded = "http://\(inner)".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let published = [
            "http://\(host)/status/503/\(inner)",  // a 5xx at a podtrac-shaped hop
            "http://\(host)/status/502?url=\(encoded)",  // the inner URL percent-encoded in the query
            "http://\(host)/status/500/e/http://\(inner)",  // a whole URL written in the path
        ]
        for (i, url) in published.enumerated() {
            let (exit, _, err) = try await cli.run(["download", "--download-dir", dir.file("out\(i)"), url])
            XCTAssertEqual(exit.code, 0, url + ": " + err)
            // Named from the published URL (`502.mp3` for the query form), as podq names any download.
            let files = try FileManager.default.contentsOfDirectory(atPath: dir.file("out\(i)"))
            XCTAssertEqual(files.count, 1, "\(files)")
            XCTAssertEqual(FileHash.sha256(path: dir.file("out\(i)/\(files.first ?? "")")), PatternSource(seed: 4, length: 3000).sha256, url)
        }
    }

    func testAChainThatDiesForGoodShowsItsHopsInTheFailure() async throws {
        try writeConfig("max-attempts = 1\n")
        let published = "http://\(host)/prefix/e/127.0.0.2:\(server.port)/episode.mp3"
        let (exit, out, err) = try await cli.run(["download", "--download-dir", dir.file("out"), published])
        XCTAssertNotEqual(exit.code, 0)
        XCTAssertTrue((out + err).contains("(via 127.0.0.1 -> 127.0.0.2)"), out + err)
        let (_, list, _) = try await cli.run(["queue", "list"])
        XCTAssertTrue(list.contains("via 127.0.0.1 -> 127.0.0.2"), list)
    }

    func testWhenTheURLInsideFailsTooTheHopsOwnFailureIsReported() async throws {
        // A path that only looks like a prefix (a CDN folder named after a host): its passing 503
        // must not become the 404 of a guessed URL, which would never be retried.
        try writeConfig("max-attempts = 1\n")
        let published = "http://\(host)/status/503/\(host)/status/404"
        let (exit, out, err) = try await cli.run(["download", "--download-dir", dir.file("out"), published])
        XCTAssertNotEqual(exit.code, 0)
        XCTAssertTrue((out + err).contains("HTTP 503") && !(out + err).contains("HTTP 404"), out + err)
    }

    // MARK: 2. User-Agent

    func testAWebFirewallThatRefusesPodqsAgentGetsTheBrowserFormOnceAndItIsRemembered() async throws {
        let first = server.url("/waf/a.mp3?size=5000"), second = server.url("/waf/b.mp3?size=6000")
        let (exit, _, err) = try await cli.run(["download", "--jobs", "1", "--download-dir", dir.file("out"), first.absoluteString, second.absoluteString])
        XCTAssertEqual(exit.code, 0, err)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: dir.file("out/b.mp3"))[.size] as? Int, 6000)
        let agents = server.log.requests.map { $0.header("User-Agent") ?? "" }
        XCTAssertEqual(
            agents, [AsyncHTTPTransport.defaultUserAgent, AsyncHTTPTransport.browserUserAgent, AsyncHTTPTransport.browserUserAgent],
            "one refusal, one retry, then the host's agent is remembered")
        XCTAssertTrue(AsyncHTTPTransport.defaultUserAgent.hasPrefix("podq/\(PodqVersion.current) (+http"))
        XCTAssertEqual(AsyncHTTPTransport.browserUserAgent, "Mozilla/5.0 (compatible; podq/\(PodqVersion.current))")
        let log = try String(contentsOfFile: cli.home + "/podq.log", encoding: .utf8)
        XCTAssertTrue(log.contains("a web firewall refused podq's User-Agent") && log.contains("Cloudflare"), log)
    }

    func testAFirewallThatRefusesBothAgentsIsNamedWithWhatToTry() async throws {
        let (exit, out, err) = try await cli.run(["download", "--download-dir", dir.file("out"), server.url("/waf/x.mp3?block=all").absoluteString])
        XCTAssertNotEqual(exit.code, 0)
        XCTAssertTrue(out.contains("HTTP 403, behind Cloudflare") && out.contains("user-agent"), out + err)
        XCTAssertFalse(out.contains("retrying"), "a refusal is not retried: \(out)")
        XCTAssertEqual(server.log.requests.count, 2, "podq's agent, then the browser-compatible one, once")
    }

    func testTheConfigsUserAgentIsSentAsItIs() async throws {
        try writeConfig("user-agent = \"MyCatcher/2.0\"\n")
        server.serve(rss("<item><title>A</title><enclosure url=\"/data/a.mp3?size=10\"/></item>"), as: "ua.xml")
        let (exit, _, err) = try await cli.run(["add", server.url("/static/ua.xml").absoluteString])
        XCTAssertEqual(exit.code, 0, err)
        XCTAssertEqual(server.log.requests.last?.header("User-Agent"), "MyCatcher/2.0")
        _ = try await cli.run(["parse", server.url("/static/ua.xml").absoluteString])
        XCTAssertEqual(server.log.requests.last?.header("User-Agent"), "MyCatcher/2.0", "podq parse reads the config too")
        try writeConfig("user-agent = \"bad\u{01}agent\"\n")
        let (bad, _, badErr) = try await cli.run(["feeds"])
        XCTAssertNotEqual(bad.code, 0)
        XCTAssertTrue(badErr.contains("user-agent"), badErr)
    }

    // MARK: 4. Compression

    func testAFeedSentGzipOrDeflateIsDecodedAskedOrNot() async throws {
        let feed = rss("<item><title>Zipped</title><guid>z</guid><enclosure url=\"/data/z.mp3?size=10\"/></item>")
        server.serve(StoredDeflate.gzip(feed), as: "gz.xml", headers: [("Content-Encoding", "gzip")])
        server.serve(StoredDeflate.zlib(feed), as: "deflate.xml", headers: [("Content-Encoding", "deflate")])
        for name in ["gz.xml", "deflate.xml"] {
            let (exit, out, err) = try await cli.run(["add", server.url("/static/\(name)").absoluteString])
            XCTAssertEqual(exit.code, 0, name + ": " + err)
            XCTAssertTrue(out.contains("1 episode"), out)
        }
        XCTAssertEqual(server.log.requests.first?.header("Accept-Encoding"), "gzip, deflate")
        // Compressed twice on the way (the body is still gzip once HTTP's encoding is undone), or a
        // .xml.gz served as it is: what it holds is read.
        server.serve(StoredDeflate.gzip(StoredDeflate.gzip(feed)), as: "twice.xml", headers: [("Content-Encoding", "gzip")])
        server.serve(StoredDeflate.gzip(feed), as: "feed.xml.gz", type: "application/gzip")
        for name in ["twice.xml", "feed.xml.gz"] {
            let (exit, out, err) = try await cli.run(["parse", server.url("/static/\(name)").absoluteString])
            XCTAssertEqual(exit.code, 0, name + ": " + err)
            XCTAssertTrue(out.contains("Zipped"), out)
        }
        let (_, parsed, _) = try await cli.run(["parse", server.url("/static/gz.xml").absoluteString])
        XCTAssertTrue(parsed.contains("1 episode") || parsed.contains("Zipped"), parsed)
    }

    func testMediaIsAskedForAsItIsAndAnEncodedBodyIsNeverStored() async throws {
        try writeConfig("max-attempts = 1\n")
        let (ok, _, okErr) = try await cli.run(["download", "--download-dir", dir.file("out"), server.dataURL(size: 2000, name: "plain.mp3").absoluteString])
        XCTAssertEqual(ok.code, 0, okErr)
        XCTAssertEqual(server.log.requests.last?.header("Accept-Encoding"), "identity")
        let encoded = server.dataURL(size: 2000, name: "enc.mp3", ["encoding": "gzip"])
        let (exit, out, err) = try await cli.run(["download", "--download-dir", dir.file("out"), encoded.absoluteString])
        XCTAssertNotEqual(exit.code, 0)
        XCTAssertTrue((out + err).contains("Content-Encoding: gzip"), out + err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("out/enc.mp3")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("out/enc.mp3.part")))
    }

    // MARK: 9. A web page served as audio

    func testAWebPageWhereTheAudioShouldBeFailsAndLeavesNoFile() async throws {
        try writeConfig("max-attempts = 1\n")
        let labelled = server.dataURL(size: 3000, name: "paywall.mp3", ["type": "text/html; charset=utf-8"])
        server.serve(Array("\u{FEFF}  <!DOCTYPE html><html><body>Please log in</body></html>".utf8), as: "login.mp3", type: "application/octet-stream")
        for (url, name) in [(labelled, "paywall.mp3"), (server.url("/static/login.mp3"), "login.mp3")] {
            let (exit, out, err) = try await cli.run(["download", "--download-dir", dir.file("out"), url.absoluteString])
            XCTAssertNotEqual(exit.code, 0, name)
            XCTAssertTrue((out + err).contains("the server sent a web page, not audio") || (out + err).contains("sent a web page, not audio"), out + err)
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("out/\(name)")), name)
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("out/\(name).part")), name)
        }
    }

    func testAnMP3LabelledAsAWebPageIsKeptAndALoginPageNeverTakesAPartialsPlace() async throws {
        // A PHP script that forgot its Content-Type sends the MP3 as text/html: its bytes say MP3.
        let mp3 = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0] + (0..<5000).map { UInt8(truncatingIfNeeded: $0) }
        server.serve(mp3, as: "get.php", type: "text/html; charset=UTF-8")
        let (ok, okOut, okErr) = try await cli.run(["download", "--download-dir", dir.file("out"), server.url("/static/get.php").absoluteString])
        XCTAssertEqual(ok.code, 0, okOut + okErr)

        // A download cut at 100,000 bytes, then a login page where the resume should be: the partial
        // stays as it was, for a later resume.
        try writeConfig("max-attempts = 2\nretry-delay = 0.1\n")
        let url = server.dataURL(size: 300_000, seed: 12, name: "members.mp3", ["dropFirst": "100000", "thenPage": "1"])
        let (exit, out, err) = try await cli.run(["download", "--download-dir", dir.file("out2"), url.absoluteString])
        XCTAssertNotEqual(exit.code, 0)
        XCTAssertTrue(out.contains("sent a web page, not audio"), out + err)
        // What the first attempt wrote is still there, byte for byte (emptied first, it would be gone).
        let kept = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir.file("out2/members.mp3.part"))))
        XCTAssertFalse(kept.isEmpty, "the partial is kept")
        XCTAssertEqual(kept, PatternSource(seed: 12, length: 300_000).bytes(count: kept.count), "and holds the file's first bytes")
    }

    // MARK: 5. Relative URLs

    func testRelativeEnclosuresResolveAgainstXMLBaseAndTheFinalFeedURL() async throws {
        let items = """
            <item xml:base="ep/"><title>Based</title><guid>1</guid><enclosure url="a.mp3"/></item>
            <item><title>Protocol-relative</title><guid>2</guid><enclosure url="//\(host)/data/b.mp3"/></item>
            <item xml:base="http://127.0.0.3/other/"><title>Absolute base</title><guid>3</guid><enclosure url="../c.mp3"/></item>
            """
        server.serve(rss(items, attributes: " xml:base=\"/media/\""), as: "based.xml")
        server.serve(rss("<item><title>Plain</title><guid>4</guid><enclosure url=\"d.mp3\"/></item>"), as: "dir/feed.xml")
        let (exit, _, err) = try await cli.run(["add", server.url("/static/based.xml").absoluteString])
        XCTAssertEqual(exit.code, 0, err)
        // Reached through a redirect: relative URLs resolve against where the feed really is.
        let (moved, _, movedErr) = try await cli.run(["add", server.url("/redirect/1?to=/static/dir/feed.xml").absoluteString])
        XCTAssertEqual(moved.code, 0, movedErr)
        let urls = try await episodeURLs()
        XCTAssertEqual(
            Set(urls),
            [
                "http://\(host)/media/ep/a.mp3", "http://\(host)/data/b.mp3", "http://127.0.0.3/c.mp3", "http://\(host)/static/dir/d.mp3",
            ])
    }

    // MARK: 6. Paged feeds

    private func page(_ n: Int, of last: Int, new: String = "") -> [UInt8] {
        let next = n < last ? "<atom:link rel=\"next\" href=\"p\(n + 1).xml\"/>" : ""
        return rss(new + "<item><title>Episode \(n)</title><guid>g\(n)</guid><enclosure url=\"/data/e\(n).mp3?size=10\"/></item>", channel: next)
    }

    func testAPagedFeedIsReadToItsEndAndRefreshStopsAtAPageWithNothingNew() async throws {
        for n in 1...3 { server.serve(page(n, of: 3), as: "p\(n).xml") }
        let (exit, out, err) = try await cli.run(["add", server.url("/static/p1.xml").absoluteString])
        XCTAssertEqual(exit.code, 0, err)
        XCTAssertTrue(out.contains(": 3 episodes"), out)
        server.serve(page(1, of: 3, new: "<item><title>Fresh</title><guid>fresh</guid><enclosure url=\"/data/f.mp3?size=10\"/></item>"), as: "p1.xml")
        server.log.reset()
        let (_, refreshed, _) = try await cli.run(["refresh"])
        XCTAssertTrue(refreshed.contains("1 new"), refreshed)
        XCTAssertEqual(server.log.requests.map(\.path), ["/static/p1.xml", "/static/p2.xml"], "page 2 added nothing: page 3 is not read")
    }

    func testAPagedFeedStopsAtTheCapAndSaysSo() async throws {
        for n in 1...105 { server.serve(page(n, of: 105), as: "p\(n).xml") }
        let (exit, out, err) = try await cli.run(["add", server.url("/static/p1.xml").absoluteString])
        XCTAssertEqual(exit.code, 0, err)
        XCTAssertTrue(out.contains(": 100 episodes"), out)
        XCTAssertTrue(out.contains("stopped after 100 pages"), out)
    }

    // MARK: 7. Moved feeds

    /// A 301 whose target answers 304 (nothing new there): the move is recorded all the same (issue 43;
    /// it was lost, and every refresh went through the old URL).
    func testAPermanentMoveAnswered304AtItsEndIsRecorded() async throws {
        let item = "<item><title>A</title><guid>a</guid><enclosure url=\"/data/a.mp3?size=10\"/></item>"
        server.serve(rss(item), as: "before.xml")
        server.serve(rss(item), as: "after.xml")  // the same bytes: the same ETag, so a 304
        let (added, out, err) = try await cli.run(["add", server.url("/static/before.xml").absoluteString])
        XCTAssertEqual(added.code, 0, out + err)
        let target = server.url("/static/after.xml")
        server.move("/static/before.xml", to: target)
        server.log.reset()
        let (_, refreshed, _) = try await cli.run(["refresh"])
        XCTAssertTrue(refreshed.contains("not modified; the feed moved to \(target.absoluteString)"), refreshed)
        XCTAssertNotNil(server.log.requests.last?.header("If-None-Match"), "it was a conditional GET, answered 304")
        let (_, feeds, _) = try await cli.run(["feeds"])
        XCTAssertTrue(feeds.contains("/static/after.xml") && !feeds.contains("/static/before.xml"), feeds)
        server.log.reset()
        _ = try await cli.run(["refresh"])
        XCTAssertEqual(server.log.requests.map(\.path), ["/static/after.xml"], "the next refresh goes to the new place")
    }

    func testNewFeedURLAndPermanentRedirectsMoveTheFeedAndTemporaryOnesDoNot() async throws {
        let item = "<item><title>A</title><guid>a</guid><enclosure url=\"/data/a.mp3?size=10\"/></item>"
        server.serve(rss(item), as: "old.xml")
        server.serve(rss(item + "<item><title>B</title><guid>b</guid><enclosure url=\"/data/b.mp3?size=10\"/></item>"), as: "new.xml")
        _ = try await cli.run(["add", server.url("/static/old.xml").absoluteString])
        server.serve(rss(item, channel: "<itunes:new-feed-url>\(server.url("/static/new.xml").absoluteString)</itunes:new-feed-url>"), as: "old.xml")
        let (_, refreshed, _) = try await cli.run(["refresh"])
        XCTAssertTrue(refreshed.contains("1 new; the feed moved to \(server.url("/static/new.xml").absoluteString)"), refreshed)
        let (_, feeds, _) = try await cli.run(["feeds"])
        XCTAssertTrue(feeds.contains("/static/new.xml") && !feeds.contains("/static/old.xml"), feeds)

        // Two feeds that each name the other as the new one: podq stays where it is and says so.
        let newURL = server.url("/static/new.xml").absoluteString
        server.serve(rss(item, channel: "<itunes:new-feed-url>\(server.url("/static/old.xml").absoluteString)</itunes:new-feed-url>"), as: "new.xml")
        let (_, looped, _) = try await cli.run(["refresh"])
        XCTAssertTrue(looped.contains("which is not a feed that stays there; kept \(newURL)"), looped)
        let (_, stillFeeds, _) = try await cli.run(["feeds"])
        XCTAssertTrue(stillFeeds.contains("/static/new.xml"), stillFeeds)

        // A 302 is temporary: the subscription keeps the URL it was given.
        server.serve(rss("<item><title>T</title><guid>t</guid><enclosure url=\"/data/t.mp3?size=10\"/></item>"), as: "temp.xml")
        let temporary = server.url("/redirect/1?to=/static/temp.xml").absoluteString
        _ = try await cli.run(["add", temporary])
        let (_, after, _) = try await cli.run(["feeds"])
        XCTAssertTrue(after.contains(temporary), after)
    }

    // MARK: 8. Whatever the user pastes

    func testAWebsiteSubscribesToTheFeedItLinks() async throws {
        server.serve(rss("<item><title>A</title><guid>a</guid><enclosure url=\"/data/a.mp3?size=10\"/></item>"), as: "show/feed.xml")
        server.serve(rss("<item><title>V</title><guid>v</guid><enclosure url=\"/data/v.mp4?size=10\"/></item>"), as: "show/video.xml")
        let page = """
            <!DOCTYPE html><html><head><title>The Show</title>
            <link rel="stylesheet" href="/s.css">
            <link rel="alternate" type="application/rss+xml" title="Audio" href="feed.xml">
            <link rel="alternate" type="application/rss+xml" title="Video" href="/static/show/video.xml">
            </head><body><p>Unclosed <b>tags <i>everywhere</body></html>
            """
        server.serve(Array(page.utf8), as: "show/index.html", type: "text/html")
        let (exit, out, err) = try await cli.run(["add", server.url("/static/show/index.html").absoluteString])
        XCTAssertEqual(exit.code, 0, err)
        XCTAssertTrue(out.contains("the page links to 2 feeds; took the first, \(server.url("/static/show/feed.xml").absoluteString)"), out)
        let (_, feeds, _) = try await cli.run(["feeds"])
        XCTAssertTrue(feeds.contains("/static/show/feed.xml"), feeds)

        server.serve(Array("<html><body>No feed here</body></html>".utf8), as: "plain.html", type: "text/html")
        let (_, parsed, parseErr) = try await cli.run(["parse", server.url("/static/show/index.html").absoluteString])
        XCTAssertTrue(parsed.contains("Show — 1 episode") && parseErr.contains("the page links to 2 feeds"), parsed + parseErr)

        let (none, _, noneErr) = try await cli.run(["add", server.url("/static/plain.html").absoluteString])
        XCTAssertNotEqual(none.code, 0)
        XCTAssertTrue(noneErr.contains("is a web page that links to no feed"), noneErr)
    }

    func testAnApplePodcastsLinkSubscribesToTheFeedAppleLists() async throws {
        server.serve(rss("<item><title>A</title><guid>a</guid><enclosure url=\"/data/a.mp3?size=10\"/></item>"), as: "apple-feed.xml")
        let feedURL = server.url("/static/apple-feed.xml").absoluteString
        server.serve(
            Array(#"{"resultCount":1,"results":[{"wrapperType":"track","kind":"podcast","collectionId":123456789,"feedUrl":"\#(feedURL)"}]}"#.utf8),
            as: "lookup", type: "text/javascript")
        server.serve(Array(#"{"resultCount":0,"results":[]}"#.utf8), as: "empty-lookup", type: "text/javascript")
        // Apple's lookup is the in-process server's: the Apple page itself is never fetched.
        let lookup = ["PODQ_APPLE_LOOKUP": server.url("/static/lookup").absoluteString]
        let (exit, out, err) = try await cli.run(["add", "https://podcasts.apple.com/us/podcast/the-show/id123456789"], environment: lookup)
        XCTAssertEqual(exit.code, 0, out + err)
        XCTAssertTrue(out.contains("1 episode; Apple Podcasts lists its feed: \(feedURL)"), out)
        XCTAssertTrue(server.log.requests.contains { $0.uri.hasPrefix("/static/lookup?id=123456789&entity=podcast") })
        let (_, feeds, _) = try await cli.run(["feeds"])
        XCTAssertTrue(feeds.contains(feedURL), feeds)

        let (none, _, noneErr) = try await cli.run(
            ["add", "https://podcasts.apple.com/us/podcast/exclusive/id987"],
            environment: ["PODQ_APPLE_LOOKUP": server.url("/static/empty-lookup").absoluteString])
        XCTAssertNotEqual(none.code, 0)
        XCTAssertTrue(noneErr.contains("Apple lists no public feed"), noneErr)
    }

    func testAURLPastedWithItsWrappingIsRead() async throws {
        server.serve(rss("<item><title>A</title><guid>a</guid><enclosure url=\"/data/a.mp3?size=10\"/></item>"), as: "my%20show.xml")
        let url = "http://\(host)/static/my show.xml"
        for pasted in ["  <\(url)>  ", "\"\(url)\""] {
            let (exit, out, err) = try await cli.run(["parse", pasted])
            XCTAssertEqual(exit.code, 0, pasted + ": " + out + err)
            XCTAssertTrue(out.contains("Show — 1 episode"), out)
        }
    }

    // MARK: 11. Several enclosures

    func testAudioIsChosenAmongSeveralEnclosuresAndAllAreKept() async throws {
        let items = """
            <item><title>Two</title><guid>1</guid><enclosure url="/data/v1.mp4" type="video/mp4"/><enclosure url="/data/a1.mp3" type="audio/mpeg"/></item>
            <item><title>Group</title><guid>2</guid><media:group><media:content url="/data/v2.mp4" type="video/mp4"/>\
            <media:content url="/data/a2.m4a" type="audio/x-m4a"/></media:group></item>
            """
        server.serve(rss(items), as: "multi.xml")
        let (exit, _, err) = try await cli.run(["add", server.url("/static/multi.xml").absoluteString])
        XCTAssertEqual(exit.code, 0, err)
        let urls = try await episodeURLs()
        XCTAssertEqual(Set(urls), ["http://\(host)/data/a1.mp3", "http://\(host)/data/a2.m4a"])
        // The library keeps every file of the item, in document order.
        let listed = try await json(["episodes", "--json"])
        let stored = try XCTUnwrap(listed as? [[String: Any]]).map { ($0["enclosures"] as? [[String: Any]] ?? []).compactMap { $0["url"] as? String } }
        XCTAssertEqual(
            Set(stored), [["http://\(host)/data/v1.mp4", "http://\(host)/data/a1.mp3"], ["http://\(host)/data/v2.mp4", "http://\(host)/data/a2.m4a"]])
        let value = try await json(["parse", "--json", server.url("/static/multi.xml").absoluteString])
        let parsed = try XCTUnwrap(value as? [String: Any])
        let episodes = try XCTUnwrap(parsed["episodes"] as? [[String: Any]])
        XCTAssertEqual(episodes.map { ($0["enclosures"] as? [Any])?.count ?? 0 }, [2, 2])
    }
}
