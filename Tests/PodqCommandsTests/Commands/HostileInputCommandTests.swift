import PodqBase
import PodqCore
import PodqSession
import PodqTestSupport
import XCTest

/// Issue 14 through the real binary: careless feeds keep every episode and say so; hostile ones are
/// refused with the cap they broke; no output of any command carries unsafe text or a credential; a
/// config podq cannot read stops it with the file's name.
final class HostileInputCommandTests: CLITestCase {
    private func json(_ args: [String]) async throws -> Any {
        let (_, out, _) = try await cli.run(args)
        return try JSONSerialization.jsonObject(with: Data(out.utf8))
    }

    private func rss(_ items: String, title: String = "Show") -> [UInt8] {
        Array(
            """
            <?xml version="1.0"?><rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>\(title)</title>
            \(items)
            </channel></rss>
            """.utf8)
    }

    func testASloppyFeedKeepsEveryEpisodeAndEveryOutputSaysItWasRepaired() async throws {
        let items = """
            <item><title>one \u{07} bell</title><guid>1</guid><enclosure url="/data/1.mp3?size=10"/></item>
            <item><title>two &#x7; ref</title><guid>2</guid><enclosure url="/data/2.mp3?size=10"/></item>
            <item><title>three &eacute;&nbsp;x</title><guid>3</guid><enclosure url="/data/3.mp3?size=10"/></item>
            <item><title>four<br></title><guid>4</guid><enclosure url="/data/4.mp3?size=10"/></item>
            """
        server.serve(rss(items), as: "sloppy.xml")
        let (added, out, err) = try await cli.run(["add", server.url("/static/sloppy.xml").absoluteString])
        XCTAssertEqual(added.code, 0, err)
        XCTAssertTrue(out.contains("4 episodes"), out)
        XCTAssertTrue(out.contains("read with repairs: repaired 2 control characters, 2 HTML entities or bare &s, 1 HTML tag left open"), out)
        let (_, list, _) = try await cli.run(["feeds"])
        XCTAssertTrue(list.contains("read with repairs:"), list)
        let feedsJSON = try await json(["feeds", "--json"])
        let feeds = try XCTUnwrap(feedsJSON as? [[String: Any]])
        XCTAssertTrue((feeds.first?["repairs"] as? String)?.contains("control characters") == true, "\(feeds)")
        let episodesJSON = try await json(["episodes", "--json"])
        let episodes = try XCTUnwrap(episodesJSON as? [[String: Any]])
        XCTAssertEqual(Set(episodes.compactMap { $0["title"] as? String }), ["one bell", "two ref", "three é x", "four"])
        let log = try String(contentsOfFile: cli.home + "/podq.log", encoding: .utf8)
        XCTAssertTrue(log.contains("feed read with repairs"), log)
        // A refresh of the changed feed says it again.
        server.serve(rss(items + "<item><title>five &hellip;</title><guid>5</guid><enclosure url=\"/data/5.mp3?size=10\"/></item>"), as: "sloppy.xml")
        let (_, refreshed, _) = try await cli.run(["refresh"])
        XCTAssertTrue(refreshed.contains("1 new; read with repairs"), refreshed)
    }

    func testQuadraticEntityExpansionIsRefusedWithItsCap() async throws {
        let big = String(repeating: "A", count: 20_000)
        let items = (0..<500).map { "<item><title>\(String(repeating: "&e;", count: 100))</title><enclosure url=\"/x/\($0).mp3\"/></item>" }.joined()
        var feed = rss(items)
        feed.insert(contentsOf: Array("<!DOCTYPE rss [<!ENTITY e \"\(big)\">]>".utf8), at: feed.firstIndex(of: UInt8(ascii: ">"))! + 1)
        server.serve(feed, as: "quadratic.xml")
        let (added, _, err) = try await cli.run(["add", server.url("/static/quadratic.xml").absoluteString])
        XCTAssertEqual(added.code, 2, err)
        XCTAssertTrue(err.contains("expand to more than 16 MiB"), err)
        let (_, list, _) = try await cli.run(["feeds"])
        XCTAssertTrue(list.contains("No subscriptions"), "nothing stored: \(list)")
    }

    func testEpisodesThatDifferOnlyInTheQueryStayApartAndMergedRowsComeApart() async throws {
        func items(_ ids: ClosedRange<Int>, guids: Bool = true) -> String {
            ids.reversed().map { "<item><title>Episode \($0)</title>\(guids ? "<guid>g\($0)</guid>" : "")<enclosure url=\"/get.php?id=\($0)\"/></item>" }
                .joined()
        }
        server.serve(rss(items(1...4)), as: "php.xml")
        let (_, out, err) = try await cli.run(["add", server.url("/static/php.xml").absoluteString])
        XCTAssertTrue(out.contains(": 4 episodes"), out + err)
        server.serve(rss(items(1...5)), as: "php.xml")
        let (_, refreshed, _) = try await cli.run(["refresh"])
        XCTAssertTrue(refreshed.contains("1 new"), refreshed)
        let episodesJSON = try await json(["episodes", "--json"])
        let episodes = try XCTUnwrap(episodesJSON as? [[String: Any]])
        XCTAssertEqual(Set(episodes.compactMap { $0["url"] as? String }.map { String($0.suffix(4)) }), ["id=5", "id=4", "id=3", "id=2", "id=1"])

        // Without GUIDs, a tracking parameter alone does not make a new episode; the query does.
        let tracked =
            "<item><title>A</title><enclosure url=\"/get.php?id=1&amp;utm_source=x\"/></item>"
            + "<item><title>A again</title><enclosure url=\"/get.php?id=1&amp;utm_source=y\"/></item>"
            + "<item><title>B</title><enclosure url=\"/get.php?id=2\"/></item>"
        server.serve(rss(tracked, title: "Tracked"), as: "tracked.xml")
        let (_, second, _) = try await cli.run(["add", server.url("/static/tracked.xml").absoluteString])
        XCTAssertTrue(second.contains("Tracked: 2 episodes"), second)
    }

    func testNoOutputOfAnyCommandCarriesUnsafeTextOrACredential() async throws {
        let evil = "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{9B}31m\u{85}\u{202E}gnp.exe\u{2066}\u{200F}"
        let items = """
            <item><title>T\(evil)</title><guid>G\(evil)</guid><author>A\(evil)</author><description>D\(evil)</description>
            <media:content url="/data/m.mp3?size=100&amp;seed=1" type="audio/mpeg\(evil)"/></item>
            """
        // Raw C0 bytes are not XML: the repair drops them. C1 controls and bidi overrides are XML, so the cleaner meets them.
        server.serve(rss(items, title: "P\(evil)"), as: "evil.xml")
        let credURL = server.url("/static/evil.xml").absoluteString.replacingOccurrences(of: "://", with: "://alice:s3cret@")
        let opml = """
            <?xml version="1.0"?><opml version="2.0"><body>
            <outline text="O&#x85;\u{202E}x" xmlUrl="\(server.url("/static/evil.xml").absoluteString)?x=\u{202E}&#x85;"/>
            <outline text="Cred" xmlUrl="\(credURL)"/>
            <outline text="Local" xmlUrl="file:///etc/passwd"/>
            </body></opml>
            """
        let opmlPath = dir.file("list.opml")
        try opml.write(toFile: opmlPath, atomically: true, encoding: .utf8)
        let feedPath = dir.file("evil.xml")
        _ = FileManager.default.createFile(atPath: feedPath, contents: Data(rss(items, title: "P\(evil)")))

        // One attempt each: the refused download below need not wait for retries.
        try FileManager.default.createDirectory(atPath: cli.home, withIntermediateDirectories: true)
        // The player: Debian's mpv, kept off the user's mpv config and sound device (the test's HOME stays empty).
        try "max-attempts = 1\nplayer = mpv --no-config --no-video --ao=null --really-quiet\n".write(
            toFile: cli.home + "/config", atomically: true, encoding: .utf8)
        var outputs: [(String, String)] = []
        func run(_ args: [String]) async throws {
            let (_, out, err) = try await cli.run(args)
            outputs.append((args.joined(separator: " "), out + err))
        }
        try await run(["parse", feedPath])
        try await run(["parse", "--json", feedPath])
        try await run(["parse", "--json", server.url("/static/evil.xml").absoluteString])
        try await run(["add", server.url("/static/evil.xml").absoluteString])
        try await run(["import", opmlPath])
        try await run(["add", credURL + "?again"])
        try await run(["feeds"])
        try await run(["feeds", "--json"])
        try await run(["episodes"])
        try await run(["episodes", "--json"])
        try await run(["export"])
        try await run(["refresh"])
        try await run(["queue", "add", "1"])
        try await run(["queue"])
        try await run(["queue", "--json"])
        try await run(["download"])
        try await run(["queue", "add", "http://bob:hunter2@127.0.0.1:1/x.mp3"])
        try await run(["download"])
        try await run(["queue", "retry", "2"])
        try await run(["queue", "pause", "2"])
        try await run(["queue", "resume", "2"])
        try await run(["queue", "cancel", "2"])
        try await run(["queue", "remove", "2"])
        try await run(["play", "1"])
        try await run(["cleanup", "--dry-run"])
        try await run(["remove", "1"])
        try await run(["feeds", "--json"])
        outputs.append(("podq.log", try String(contentsOfFile: cli.home + "/podq.log", encoding: .utf8)))
        for (what, text) in outputs {
            let unsafe = text.unicodeScalars.filter { $0 != "\n" && $0 != "\t" && SafeText.isUnsafe($0) }
            XCTAssertTrue(unsafe.isEmpty, "\(what) printed \(unsafe.map { String($0.value, radix: 16) }):\n\(text)")
            XCTAssertFalse(text.contains("s3cret") || text.contains("hunter2"), "\(what) printed a password:\n\(text)")
        }
        XCTAssertTrue(outputs.contains { $0.1.contains("T]0;pwned") || $0.1.contains("Tgnp.exe") }, "the titles are there, cleaned")
        XCTAssertTrue(outputs.contains { $0.1.contains("skipped 1 outlines") }, "the file: outline is skipped")
    }

    func testAConfigPodqCannotReadStopsItWithTheFileNamedAndCRLFIsFine() async throws {
        try FileManager.default.createDirectory(atPath: cli.home, withIntermediateDirectories: true)
        let config = cli.home + "/config"
        _ = FileManager.default.createFile(atPath: config, contents: Data("# mine\nmax-attempts = 3\n# caf".utf8 + [0xE9, 0x0A]))
        let (bad, _, err) = try await cli.run(["feeds"])
        XCTAssertEqual(bad.code, 4, err)
        XCTAssertTrue(err.contains(config + ":3: this line is not UTF-8"), err)

        try FileManager.default.removeItem(atPath: config)
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        let (folder, _, err2) = try await cli.run(["feeds"])
        XCTAssertEqual(folder.code, 4, err2)
        XCTAssertTrue(err2.contains("Cannot read the config file \(config): it is a folder"), err2)

        try FileManager.default.removeItem(atPath: config)
        try "# windows\r\nsimultaneous-downloads = 3\r\nstall-timeout = 20\r\n".write(toFile: config, atomically: true, encoding: .utf8)
        let (crlf, out, err3) = try await cli.run(["feeds"])
        XCTAssertEqual(crlf.code, 0, out + err3)
    }

    func testANewcomersMistakesGetTrueMessagesAndARefusedConnectionFailsAtOnce() async throws {
        server.serve([UInt8]("ID3".utf8) + [4, 0, 0, 0, 0, 0] + [UInt8](repeating: 0x55, count: 2_000_000), as: "episode.mp3")
        let (mp3, _, err) = try await cli.run(["add", server.url("/static/episode.mp3").absoluteString])
        XCTAssertEqual(mp3.code, 2, err)
        XCTAssertTrue(err.contains("This is not a feed: it looks like an audio file (MP3)"), err)
        XCTAssertFalse(err.contains("empty"), err)

        let (missing, _, err2) = try await cli.run(["add", server.url("/static/no-such-feed.xml").absoluteString])
        XCTAssertEqual(missing.code, 1, err2)
        XCTAssertTrue(err2.contains("The server has no feed at"), err2)
        XCTAssertFalse(err2.contains("episode"), "a feed is not an episode: \(err2)")

        // Nobody listens on port 1: refused, said so, and not after a 10 s connect timeout (checked by
        // the attempt count the server cannot see; the time is in the closing note, not asserted).
        let (refused, _, err3) = try await cli.run(["add", "http://127.0.0.1:1/feed.xml"])
        XCTAssertEqual(refused.code, 1, err3)
        XCTAssertTrue(err3.contains("Connection refused"), err3)

        // Typos get the nearest match; a scheme typo is not read as a file; a scheme-less address is https.
        let (command, _, err4) = try await cli.run(["dowload"])
        XCTAssertEqual(command.code, 2)
        XCTAssertTrue(err4.contains("Unknown command 'dowload' for `podq`. Did you mean 'download'?") && err4.contains("Commands: tui, add"), err4)
        let (option, _, err5) = try await cli.run(["download", "--jbos", "5"])
        XCTAssertEqual(option.code, 2)
        XCTAssertTrue(err5.contains("Unknown option '--jbos' for `podq download`. Did you mean '--jobs'?"), err5)
        let (sub, _, err6) = try await cli.run(["queue", "ad", "3"])
        XCTAssertTrue(sub.code == 2 && err6.contains("Did you mean 'add'?"), err6)
        let (typo, _, err7) = try await cli.run(["add", "htp://example.org/feed.xml"])
        XCTAssertEqual(typo.code, 2, err7)
        XCTAssertTrue(err7.contains("Did you mean http://example.org/feed.xml?"), err7)
        XCTAssertFalse(err7.contains("Cannot read"), "not read as a file: \(err7)")
        let (_, _, err8) = try await cli.run(["add", "-v", "127.0.0.1:1/feed.xml"])
        XCTAssertTrue(err8.contains("https://127.0.0.1:1/feed.xml"), "read as https: \(err8)")
        let (queued, qout, qerr) = try await cli.run(["queue", "add", "example.org/ep.mp3"])
        XCTAssertEqual(queued.code, 0, qerr)
        XCTAssertTrue(qout.contains("added"), qout)
        let (_, list, _) = try await cli.run(["queue", "--json"])
        XCTAssertTrue(list.contains("https:\\/\\/example.org\\/ep.mp3") || list.contains("https://example.org/ep.mp3"), list)
        let (badScheme, _, err9) = try await cli.run(["queue", "add", "htps://example.org/ep.mp3"])
        XCTAssertEqual(badScheme.code, 2)
        XCTAssertTrue(err9.contains("Did you mean https://example.org/ep.mp3?"), err9)
    }

    func testQueueingAnEpisodeAlreadyDownloadedSaysWhereItIs() async throws {
        server.serve(rss("<item><title>Only</title><guid>o</guid><enclosure url=\"/data/o.mp3?size=1000&amp;seed=3\"/></item>"), as: "one.xml")
        _ = try await cli.run(["add", server.url("/static/one.xml").absoluteString])
        let (first, out, _) = try await cli.run(["queue", "add", "1"])
        XCTAssertTrue(first.code == 0 && out.hasPrefix("e1 → d1: Show — Only -> "), out)
        let (again, queued, _) = try await cli.run(["queue", "add", "1"])
        XCTAssertTrue(again.code == 0 && queued.contains("e1: already queued as d1 (queued): Show — Only"), queued)
        let (done, dout, derr) = try await cli.run(["download"])
        XCTAssertEqual(done.code, 0, dout + derr)
        let (_, downloaded, _) = try await cli.run(["queue", "add", "1"])
        XCTAssertTrue(downloaded.contains("e1: already downloaded as d1: Show — Only -> "), downloaded)
    }

    func testAHundredAndOneEpisodesWithOneLongTitleAllFitTheirNames() async throws {
        let title = String(repeating: "Très long épisode ", count: 20)
        let items = (1...101).map { "<item><title>\(title)</title><guid>l\($0)</guid><enclosure url=\"/data/l\($0).mp3?size=100&amp;seed=\($0)\"/></item>" }
        server.serve(rss(items.joined(), title: "Long"), as: "long.xml")
        _ = try await cli.run(["add", server.url("/static/long.xml").absoluteString])
        let (queued, out, err) = try await cli.run(["queue", "add", "--latest", "101", "Long"])
        XCTAssertEqual(queued.code, 0, err)
        XCTAssertEqual(out.components(separatedBy: " → d").count - 1, 101, out)
        let (done, dout, derr) = try await cli.run(["download", "--jobs", "8", "--per-host", "8"])
        XCTAssertEqual(done.code, 0, derr)
        XCTAssertTrue(dout.contains("101 completed"), dout)
        let names = try FileManager.default.contentsOfDirectory(atPath: cli.home + "/downloads/Long")
        XCTAssertEqual(names.count, 101)
        XCTAssertTrue(names.contains { $0.contains(" (101).mp3") }, "\(names.sorted().suffix(3))")
        XCTAssertLessThanOrEqual(names.map { $0.utf8.count + 5 }.max() ?? 0, 255)
    }

    func testTheHeadAndTheBodyAreTimedApart() async throws {
        // The head has response-timeout (1 s here), the body stall-timeout (5 s): each its own message.
        try FileManager.default.createDirectory(atPath: cli.home, withIntermediateDirectories: true)
        try "max-attempts = 1\nresponse-timeout = 1\nstall-timeout = 5\n".write(toFile: cli.home + "/config", atomically: true, encoding: .utf8)
        let (exit, out, err) = try await cli.run(["download", server.url("/data/slow.mp3?size=1000&headDelay=3").absoluteString])
        XCTAssertNotEqual(exit.code, 0)
        XCTAssertTrue((out + err).contains("sent no complete answer (its headers) for 1 s"), out + err)
        XCTAssertFalse((out + err).contains("No data arrived"), out + err)

        // A body pause of 3 s is within stall-timeout: it completes.
        let (paused, pout, perr) = try await cli.run(["download", server.url("/data/pause.mp3?size=200000&stall=100000:3").absoluteString])
        XCTAssertEqual(paused.code, 0, pout + perr)
        // With stall-timeout 1 (and response-timeout 30), the same pause is a stall, named as one.
        try "max-attempts = 1\nstall-timeout = 1\n".write(toFile: cli.home + "/config", atomically: true, encoding: .utf8)
        let (stalled, sout, serr) = try await cli.run(["download", server.url("/data/pause2.mp3?size=200000&stall=100000:3").absoluteString])
        XCTAssertNotEqual(stalled.code, 0)
        XCTAssertTrue((sout + serr).contains("No data arrived for 1 s"), sout + serr)
        // Waiting on podq's own speed limit (a 64 KiB read every 1.3 s at 50K) is not a stall.
        let (limited, lout0, lerr0) = try await cli.run([
            "download", "--limit-rate", "50K",
            server.url("/data/limited.mp3?size=200000").absoluteString,
        ])
        XCTAssertEqual(limited.code, 0, lout0 + lerr0)
        // And a head 2 s late is fine under response-timeout 30.
        let (late, lout, lerr) = try await cli.run(["download", server.url("/data/late.mp3?size=1000&headDelay=2").absoluteString])
        XCTAssertEqual(late.code, 0, lout + lerr)
    }

    func testHeadersThatTrickleInAreReportedAsTheHeadersNotAsABodyStall() async throws {
        // 200 bytes of head, one every 50 ms: never 1 s without a byte (stall-timeout), but no complete
        // head within response-timeout (2 s).
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nX-Padding: " + String(repeating: "x", count: 140) + "\r\nContent-Length: 10\r\n\r\n0123456789"
        let bytes = Array(head.utf8)
        let trickle = try await ScriptedServer.start(.cut(bytes, at: Array(1..<bytes.count), pause: .milliseconds(50)))
        try FileManager.default.createDirectory(atPath: cli.home, withIntermediateDirectories: true)
        try "max-attempts = 1\nresponse-timeout = 2\n".write(toFile: cli.home + "/config", atomically: true, encoding: .utf8)
        let (exit, out, err) = try await cli.run(["download", "--stall-timeout", "1", "http://127.0.0.1:\(trickle.port)/slow.mp3"])
        await trickle.stop()
        XCTAssertNotEqual(exit.code, 0)
        XCTAssertTrue((out + err).contains("sent no complete answer (its headers) for 2 s"), out + err)
        // The advice names the setting that applies, and promises no retry that `add` would not make.
        XCTAssertTrue((out + err).contains("raise response-timeout in the config"), out + err)
        XCTAssertFalse((out + err).contains("stall-timeout for a slow server") || (out + err).contains("tries again later"), out + err)
        XCTAssertFalse((out + err).contains("No data arrived"), out + err)
    }

    func testAReaderThatGoesAwayEndsPodqQuietly() async throws {
        // `podq parse big.xml | head -1` crashed in FileHandle.write on the broken pipe.
        let items = (0..<20_000).map { "<item><title>t\($0)</title><enclosure url=\"http://h.example/\($0).mp3\"/></item>" }.joined()
        let feed = dir.file("many.xml")
        _ = FileManager.default.createFile(atPath: feed, contents: Data(rss(items)))
        let script = "\"$0\" parse \"$1\" 2>\"$2\" | head -n 1 >/dev/null; echo \"podq=${PIPESTATUS[0]}\""
        let shell = try ChildProcess(
            executable: "/bin/bash", arguments: ["-c", script, ChildProcess.podqExecutable, feed, dir.file("err")],
            environment: ["PODQ_HOME": cli.home], directory: dir.path)
        _ = await shell.finish()
        XCTAssertTrue(shell.standardOutput.contains("podq=141"), shell.standardOutput)
        let err = (try? String(contentsOfFile: dir.file("err"), encoding: .utf8)) ?? ""
        XCTAssertFalse(err.contains("Fatal error") || err.contains("crashed"), err)
    }

    /// Random bytes given for a feed or an OPML file: said for what they are (data that does not start
    /// with XML, and for a URL what the server called it), never "the file is empty" (issue 43). A file
    /// that is empty is said to be empty. A generator: every seed's bytes that do not start with `<`.
    func testBytesThatAreNotXMLAreSaidForWhatTheyAreAndAnEmptyFileIsEmpty() async throws {
        var generator = SeededBytes(seed: 43)
        for round in 0..<12 {
            var bytes = generator.bytes(count: 200 + round * 37)
            if bytes.first == UInt8(ascii: "<") || bytes.first.map({ [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xFE, 0xFF, 0x00, 0x1F].contains($0) }) == true {
                bytes[0] = 0x7A
            }
            let file = dir.file("random\(round).bin")
            XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data(bytes)))
            for command in [["parse", file], ["import", file]] {
                let (exit, out, err) = try await cli.run(command)
                XCTAssertNotEqual(exit.code, 0, "\(command): " + out + err)
                XCTAssertFalse(err.contains("empty"), "\(command) round \(round): " + err)
                XCTAssertTrue(err.contains("does not start with XML") || err.contains("looks like"), "\(command) round \(round): " + err)
            }
            server.serve(bytes, as: "random\(round).xml", type: "text/plain")
            let (exit, out, err) = try await cli.run(["parse", server.url("/static/random\(round).xml").absoluteString])
            XCTAssertNotEqual(exit.code, 0, out + err)
            XCTAssertTrue(err.contains("the server called it text/plain"), "round \(round): " + err)
        }
        XCTAssertTrue(FileManager.default.createFile(atPath: dir.file("empty.xml"), contents: Data()))
        let (_, _, err) = try await cli.run(["parse", dir.file("empty.xml")])
        XCTAssertTrue(err.contains("the file is empty"), err)
    }
}
