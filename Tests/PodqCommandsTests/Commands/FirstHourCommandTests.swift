import Foundation
import PodqTestSupport
import XCTest

/// Issue 33's second part, through the binary: what a new user runs into in the first hour.
final class FirstHourCommandTests: CLITestCase {
    private func feed(_ title: String, items: Int, prefix: String = "e") -> [UInt8] {
        let entries = (1...max(1, items)).prefix(items).map { i in
            """
            <item><title>Part \(i): the \(i)th</title><guid>\(prefix)\(i)</guid><pubDate>\(String(format: "%02d", i)) Sep 2025 10:00:00 GMT</pubDate>
            <enclosure url="/data/\(prefix)\(i).mp3?size=2000&amp;seed=\(i)" type="audio/mpeg" length="2000"/></item>
            """
        }
        return Array(#"<?xml version="1.0"?><rss version="2.0"><channel><title>\#(title)</title>\#(entries.joined())</channel></rss>"#.utf8)
    }

    private func writeConfig(_ text: String) throws {
        try FileManager.default.createDirectory(atPath: cli.home, withIntermediateDirectories: true)
        try text.write(toFile: cli.home + "/config", atomically: true, encoding: .utf8)
    }

    /// A typo gets what was meant, not a list of forty: a config key, a podcast's setting, a command after
    /// `help` (which printed the general help and exited 0); a host that does not resolve is said with its
    /// name (not "no address"), for a download and for a feed (issue 41, point 12).
    func testTyposGetWhatWasMeantAndAHostThatDoesNotResolveIsNamed() async throws {
        try writeConfig("simultanous-downloads = 3\n")
        let config = try await cli.run(["feeds"])
        XCTAssertEqual(config.exit.code, 4, config.err)
        XCTAssertTrue(config.err.contains("unknown key 'simultanous-downloads'. Did you mean 'simultaneous-downloads'?"), config.err)
        XCTAssertFalse(config.err.contains("Known keys"), config.err)
        try writeConfig("colour-scheme = dark\n")
        let far = try await cli.run(["feeds"])
        XCTAssertTrue(far.err.contains("unknown key 'colour-scheme'. `podq help config` lists every key."), far.err)
        try writeConfig("")

        server.serve(feed("Set Show", items: 1), as: "set.xml")
        let added = try await cli.run(["add", server.url("/static/set.xml").absoluteString])
        XCTAssertEqual(added.exit.code, 0, added.err)
        let set = try await cli.run(["set", "Set Show", "kep=3"])
        XCTAssertEqual(set.exit.code, 2, set.err)
        XCTAssertTrue(set.err.contains("there is no setting 'kep'. Did you mean 'keep'?"), set.err)

        let help = try await cli.run(["help", "queu"])
        XCTAssertEqual(help.exit.code, 2, help.out)
        XCTAssertTrue(help.err.contains("Unknown command 'queu'") && help.err.contains("Did you mean 'queue'?"), help.err)
        XCTAssertEqual(help.out, "", "not the general help")
        let known = try await cli.run(["help", "queue", "add"])
        XCTAssertEqual(known.exit.code, 0, known.err)
        XCTAssertTrue(known.out.contains("USAGE: podq queue add"), known.out)

        let host = "podq-no-such-host.invalid"
        let download = try await cli.run(["download", "--download-dir", dir.file("out"), "http://\(host)/x.mp3"])
        XCTAssertEqual(download.exit.code, 1, download.out + download.err)
        XCTAssertTrue((download.out + download.err).contains("could not resolve the host \(host)"), download.out + download.err)
        XCTAssertFalse((download.out + download.err).contains("no address"), download.out)
        let feed = try await cli.run(["add", "http://\(host)/feed.xml"])
        XCTAssertEqual(feed.exit.code, 1, feed.err)
        XCTAssertTrue(feed.err.contains("could not resolve the host \(host)"), feed.err)
    }

    func testTheVersionAndUnknownWordsAreSaidPlainly() async throws {
        for flag in ["--version", "-V"] {
            let run = try await cli.run([flag])
            XCTAssertEqual(run.exit.code, 0)
            XCTAssertTrue(run.out.hasPrefix("podq "), run.out)
        }
        let unknown = try await cli.run(["nosuch", "--help"])
        XCTAssertEqual(unknown.exit.code, 2, "not the TUI's help with 0")
        XCTAssertTrue(unknown.err.contains("Unknown command 'nosuch'"), unknown.err)
        XCTAssertFalse(unknown.out.contains("The terminal UI"), unknown.out)
        let short = try await cli.run(["-x"])
        XCTAssertEqual(short.exit.code, 2)
        XCTAssertTrue(short.err.contains("Unknown option '-x' for `podq`"), short.err)
        XCTAssertFalse(short.err.contains("podq tui"), "not the TUI's usage: \(short.err)")
    }

    /// `podq --home DIR feeds`, as `git -C DIR status`: the options every command takes may come first.
    func testTheCommonOptionsMayComeBeforeTheCommand() async throws {
        server.serve(feed("Early Show", items: 2), as: "early.xml")
        let other = dir.file("other-home")
        let added = try await cli.run(["--home", other, "add", server.url("/static/early.xml").absoluteString])
        XCTAssertEqual(added.exit.code, 0, added.err)
        let listed = try await cli.run(["--home", other, "-v", "queue", "add", "1"])
        XCTAssertEqual(listed.exit.code, 0, listed.err)
        XCTAssertTrue(listed.out.hasPrefix("e1 → d1"), listed.out)
        let feeds = try await cli.run(["feeds", "--home", other])
        XCTAssertTrue(feeds.out.contains("Early Show"), feeds.out)
        let mine = try await cli.run(["feeds"])
        XCTAssertFalse(mine.out.contains("Early Show"), "the default home is another")
    }

    func testHelpConfigAndTheManPageListEveryKey() async throws {
        let help = try await cli.run(["help", "config"])
        XCTAssertEqual(help.exit.code, 0)
        let man = try String(contentsOfFile: #filePath.components(separatedBy: "/Tests/")[0] + "/docs/podq.1", encoding: .utf8)
        XCTAssertTrue(man.contains(".Sh CONFIGURATION"))
        for key in ["download-folder", "file-name-template", "search-providers", "windows-safe-names", "podcastindex-key", "sync-interval", "hook-timeout"] {
            XCTAssertTrue(help.out.contains("\n\(key)  (default: "), key)
            XCTAssertTrue(man.contains(".It Cm \(key)\n"), key)
        }
    }

    func testAMistypedSchemeAndAnOPMLByURL() async throws {
        server.serve(feed("Typo Show", items: 1), as: "typo.xml")
        let address = server.url("/static/typo.xml").absoluteString
        let typo = try await cli.run(["add", address.replacingOccurrences(of: "http://", with: "http//")])
        XCTAssertEqual(typo.exit.code, 0, typo.err)
        XCTAssertEqual(typo.out, "added podcast p1 Typo Show: 1 episode\n", "one episode, not '1 episodes'")
        server.serve(feed("Listed Show", items: 2, prefix: "l"), as: "listed.xml")
        let opml = """
            <?xml version="1.0"?><opml version="2.0"><body><outline text="Listed" type="rss" xmlUrl="\(server.url("/static/listed.xml").absoluteString)"/></body></opml>
            """
        server.serve(Array(opml.utf8), as: "subs.opml", type: "text/x-opml")
        let imported = try await cli.run(["import", server.url("/static/subs.opml").absoluteString])
        XCTAssertEqual(imported.exit.code, 0, imported.err)
        XCTAssertTrue(imported.out.contains("1 of 1 feed imported"), imported.out)
        let missing = try await cli.run(["import", dir.file("nothing-here.opml")])
        XCTAssertEqual(missing.exit.code, 2)
        XCTAssertTrue(missing.err.contains("nothing-here.opml"), missing.err)
    }

    func testListingsStayAlignedPastNineAndColonsStay() async throws {
        server.serve(feed("Talk: A Show", items: 12), as: "talk.xml")
        server.serve(feed("Other", items: 1, prefix: "o"), as: "other.xml")
        for name in ["talk.xml", "other.xml"] { _ = try await cli.run(["add", server.url("/static/\(name)").absoluteString]) }
        let episodes = try await cli.run(["episodes"]).out.split(separator: "\n").map(String.init)
        XCTAssertEqual(episodes.count, 13)
        // Every date starts in the same column: ids right-aligned.
        let columns = Set(episodes.map { $0.range(of: "2025-09-")!.lowerBound.utf16Offset(in: $0) })
        XCTAssertEqual(columns.count, 1, episodes.joined(separator: "\n"))
        XCTAssertTrue(episodes.contains { $0.hasPrefix(" e9  ") }, episodes.joined(separator: "\n"))
        let feeds = try await cli.run(["feeds"]).out.split(separator: "\n").map(String.init)
        XCTAssertEqual(Set(feeds.map { $0.range(of: "http://")!.lowerBound.utf16Offset(in: $0) }).count, 1, feeds.joined(separator: "\n"))
        XCTAssertEqual(Set(feeds.map { $0.range(of: "episode")!.lowerBound.utf16Offset(in: $0) }).count, 1, feeds.joined(separator: "\n"))

        let queued = try await cli.run(["queue", "add", "12", "--download-dir", dir.file("out")])
        XCTAssertTrue(queued.out.hasPrefix("e12 → d1: Talk: A Show — Part 12: the 12th -> "), queued.out)
        XCTAssertTrue(queued.out.contains("/Talk: A Show/2025-09-12 Part 12: the 12th.mp3"), "the colon stays on Linux: \(queued.out)")
        try writeConfig("windows-safe-names = true\n")
        let windows = try await cli.run(["queue", "add", "11", "--download-dir", dir.file("out")])
        XCTAssertTrue(windows.out.contains("/Talk_ A Show/2025-09-11 Part 11_ the 11th.mp3"), windows.out)
        let run = try await cli.run(["download"])
        XCTAssertEqual(run.exit.code, 0, run.out + run.err)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("out/Talk: A Show/2025-09-12 Part 12: the 12th.mp3")))
    }

    func testAnEmptyListingSaysSo() async throws {
        let none = try await cli.run(["episodes", "--new"])
        XCTAssertEqual(none.exit.code, 0)
        XCTAssertTrue(none.out.hasPrefix("No new episodes"), none.out)
        let all = try await cli.run(["episodes"])
        XCTAssertTrue(all.out.contains("podq search <words>"), all.out)
    }

    func testDownloadJSONIsOneObjectPerLine() async throws {
        let urls = (1...2).map { server.dataURL(size: 30_000, seed: UInt64($0), name: "j\($0).mp3").absoluteString }
        let run = try await cli.run(["download", "--json", "--download-dir", dir.file("out")] + urls)
        XCTAssertEqual(run.exit.code, 0, run.err)
        let objects = try run.out.split(separator: "\n").map { line in
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
        }
        XCTAssertEqual(objects.filter { $0["event"] as? String == "started" }.count, 2)
        let completed = objects.filter { $0["event"] as? String == "completed" }
        XCTAssertEqual(completed.count, 2)
        XCTAssertEqual(completed.compactMap { $0["bytes"] as? Int }, [30_000, 30_000])
        let summary = try XCTUnwrap(objects.last)
        XCTAssertEqual(summary["event"] as? String, "summary")
        XCTAssertEqual(summary["completed"] as? Int, 2)
        XCTAssertEqual(summary["failed"] as? Int, 0)
    }

    /// After `kill -9` nothing runs: the rows it left `downloading` are said to be interrupted.
    func testTheQueueAfterKillNineSaysInterrupted() async throws {
        let url = server.dataURL(size: 5_000_000, seed: 3, name: "slow.mp3", ["rate": "200000"]).absoluteString
        let child = try cli.start(["download", "--download-dir", dir.file("out"), url])
        let started = await waitUntil(timeout: 20) { child.standardOutput.contains("started") }
        XCTAssertTrue(started, child.standardOutput)
        let moving = await waitUntil(timeout: 20) {
            let queue = (try? String(contentsOfFile: self.cli.home + "/podq.log", encoding: .utf8)) ?? ""
            return !queue.isEmpty && FileManager.default.fileExists(atPath: self.dir.file("out/slow.mp3.part"))
        }
        XCTAssertTrue(moving)
        kill(child.pid, SIGKILL)
        _ = await child.finish()
        let listed = try await cli.run(["queue"])
        XCTAssertTrue(listed.out.contains("d1  interrupted"), listed.out)
        XCTAssertTrue(listed.out.contains("resumes on the next podq download"), listed.out)
        let json = try await cli.run(["queue", "--json"])
        let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [[String: Any]])
        XCTAssertEqual(rows.first?["state"] as? String, "downloading")
        XCTAssertEqual(rows.first?["running"] as? Bool, false)
    }
}
