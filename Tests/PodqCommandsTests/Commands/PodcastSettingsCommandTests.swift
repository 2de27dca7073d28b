import Foundation
import PodqCore
import PodqSession
import PodqTestSupport
import XCTest

/// One podcast's own rules through the binary (`podq set`): what auto-queue takes, keep-N, a size
/// budget, serial mode, and its own folder, template and hook.
final class PodcastSettingsCommandTests: CLITestCase {
    private struct Item {
        var guid: String
        var title: String
        var day: Int
        var duration = 1800
        var size = 4000
    }

    private func feed(_ title: String, _ items: [Item]) -> [UInt8] {
        let entries = items.map { i in
            "<item><title>\(i.title)</title><guid>\(i.guid)</guid><pubDate>\(i.day) Nov 2026 10:00:00 GMT</pubDate>"
                + "<itunes:duration>\(i.duration)</itunes:duration><itunes:episode>\(i.day)</itunes:episode>"
                + "<enclosure url=\"/data/\(i.guid).mp3?size=\(i.size)&amp;seed=\(i.day)\" type=\"audio/mpeg\" length=\"\(i.size)\"/></item>"
        }.joined()
        return Array(
            ("<?xml version=\"1.0\"?><rss version=\"2.0\" xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\">"
                + "<channel><title>\(title)</title>\(entries)</channel></rss>").utf8)
    }

    private func json(_ arguments: [String]) async throws -> [[String: Any]] {
        let (_, out, err) = try await cli.run(arguments)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]], out + err)
    }

    private func subscribe(_ name: String, _ title: String, _ items: [Item], auto: Bool = false) async throws {
        server.serve(feed(title, items), as: name)
        let (added, _, err) = try await cli.run(["add"] + (auto ? ["--auto"] : []) + [server.url("/static/\(name)").absoluteString])
        XCTAssertEqual(added.code, 0, err)
    }

    private func files(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasSuffix(".part") }.sorted()
    }

    func testSetChecksListsAndResetsAndFeedsJSONShowsIt() async throws {
        try await subscribe("a.xml", "Alpha", [Item(guid: "a1", title: "One", day: 1)])
        let (set, out, err) = try await cli.run(["set", "Alpha", "keep=3", "exclude=trailer|bonus", "size-budget=2G", "user-agent=Special/1.0"])
        XCTAssertEqual(set.code, 0, err)
        XCTAssertTrue(out.contains("p1 Alpha: auto-queue off"), out)
        XCTAssertTrue(
            out.contains("  keep = 3") && out.contains("  exclude = trailer|bonus") && out.contains("  size-budget = 2G")
                && out.contains("  user-agent = Special/1.0"), out)
        let feeds = try await json(["feeds", "--json"])
        let settings = try XCTUnwrap(feeds.first?["settings"] as? [String: String])
        XCTAssertEqual(settings, ["keep": "3", "exclude": "trailer|bonus", "size-budget": "2G", "user-agent": "Special/1.0"])
        XCTAssertEqual(feeds.first?["autoQueue"] as? Bool, false)

        for (pair, message) in [
            ("keep=none", "'keep' takes a number of episodes"), ("exclude=(unclosed", "'exclude' takes a regular expression"),
            ("size-budget=lots", "'size-budget' takes a size"), ("colour=blue", "there is no setting 'colour'; the keys: auto-queue, include"),
            ("file-name-template={nope}", "'file-name-template' takes a template"),
            ("min-duration=soon", "'min-duration' takes a duration"),
        ] {
            let (bad, _, badErr) = try await cli.run(["set", "Alpha", pair])
            XCTAssertEqual(bad.code, 2, pair)
            XCTAssertTrue(badErr.contains(message), "\(pair): \(badErr)")
        }
        let (reset, rout, _) = try await cli.run(["set", "1", "keep=", "exclude=", "size-budget=", "user-agent=", "auto-queue=on"])
        XCTAssertEqual(reset.code, 0)
        XCTAssertTrue(rout.contains("p1 Alpha: auto-queue on"), rout)
        let after = try await json(["feeds", "--json"])
        XCTAssertEqual(after.first?["settings"] as? [String: String], ["auto-queue": "on"])
        let (_, listed, _) = try await cli.run(["set", "Alpha"])
        XCTAssertFalse(listed.contains("keep"), "a reset key is gone: \(listed)")
    }

    func testIncludeExcludeAndMinDurationChooseWhatAutoQueueTakes() async throws {
        let first = Item(guid: "b1", title: "Episode 1", day: 1)
        try await subscribe("b.xml", "Beta", [first], auto: true)
        let (set, _, err) = try await cli.run(["set", "Beta", "exclude=^trailer", "min-duration=10m"])
        XCTAssertEqual(set.code, 0, err)
        server.serve(
            feed(
                "Beta",
                [
                    Item(guid: "b4", title: "TRAILER: next season", day: 4), Item(guid: "b3", title: "Short update", day: 3, duration: 120),
                    Item(guid: "b2", title: "Episode 2", day: 2), first,
                ]), as: "b.xml")
        let (refreshed, out, _) = try await cli.run(["refresh"])
        XCTAssertEqual(refreshed.code, 0)
        XCTAssertTrue(out.contains("3 new, 1 queued (2 left out by the podcast's include, exclude or min-duration)"), out)
        let queue = try await json(["queue", "--json"])
        XCTAssertEqual(queue.compactMap { $0["title"] as? String }, ["Beta — Episode 2"])
    }

    /// `(a+)+$` on a 201-byte title never finished (60 s and more): `set` refuses it, and one stored
    /// anyway (an earlier version, an edited database) leaves the title out and says so at once.
    func testAPatternThatBacktracksWithoutEndIsRefusedAndNeverHangsARefresh() async throws {
        let long = String(repeating: "a", count: 200) + "!"
        try await subscribe("c.xml", "Gamma", [Item(guid: "c1", title: "Episode 1", day: 1)], auto: true)
        let (refused, _, err) = try await cli.run(["set", "Gamma", "exclude=(a+)+$"])
        XCTAssertEqual(refused.code, 2, err)
        XCTAssertTrue(err.contains("bounded time"), err)
        let store = try QueueStore(path: dir.file("home/queue.sqlite"))
        try await store.library.updatePodcast(id: 1) { p in
            var rules = p.rules
            rules.exclude = "(a+)+$"
            p.rules = rules
        }
        server.serve(feed("Gamma", [Item(guid: "c2", title: long, day: 2), Item(guid: "c3", title: "Episode 3", day: 3)]), as: "c.xml")
        let (refreshed, out, rerr) = try await cli.run(["refresh"], timeout: 60)
        XCTAssertEqual(refreshed.code, 0, out + rerr)
        XCTAssertTrue(out.contains("the exclude pattern could not be matched on 1 title"), out)
        let queue = try await json(["queue", "--json"])
        XCTAssertEqual(queue.compactMap { $0["title"] as? String }, ["Gamma — Episode 3"], "the title it gave up on is not queued on a guess")
    }

    func testKeepAndSizeBudgetCleanUpEachPodcastByItsOwnRule() async throws {
        let items = (1...4).map { Item(guid: "k\($0)", title: "Ep \($0)", day: $0) }
        try await subscribe("k.xml", "Keeper", items)
        try await subscribe("s.xml", "Budget", (1...4).map { Item(guid: "s\($0)", title: "Part \($0)", day: $0) })
        for (podcast, rule) in [("Keeper", "keep=2"), ("Budget", "size-budget=10K")] {
            let (set, _, err) = try await cli.run(["set", podcast, rule])
            XCTAssertEqual(set.code, 0, err)
        }
        // Downloaded oldest first, one run each, so that the completion times are in order; all played
        // (cleanup deletes played episodes only).
        let episodes = try await json(["episodes", "--json"]).sorted { ($0["published"] as? Int ?? 0) < ($1["published"] as? Int ?? 0) }
        _ = try await QueueStore(path: dir.file("home/queue.sqlite")).library.setPlayed(
            episodeIds: episodes.compactMap { ($0["id"] as? Int).map(Int64.init) }, played: true)
        for e in episodes {
            _ = try await cli.run(["queue", "add", String(e["id"] as? Int ?? 0)])
            let (run, out, err) = try await cli.run(["download"])
            XCTAssertEqual(run.code, 0, out + err)
        }
        XCTAssertEqual(files(dir.file("home/downloads/Keeper")), ["2026-11-03 Ep 3.mp3", "2026-11-04 Ep 4.mp3"], "keep=2: the newest two")
        XCTAssertEqual(
            files(dir.file("home/downloads/Budget")), ["2026-11-03 Part 3.mp3", "2026-11-04 Part 4.mp3"],
            "10K holds two 4000-byte files")
    }

    /// The issue's new user: `keep=1` on a podcast nobody has listened to yet, then a run with nothing to
    /// download. Nothing unplayed is deleted; `set` says what its rule would delete and what it keeps.
    func testKeepNeverDeletesAnEpisodeNobodyPlayedAndSetSaysWhatItWould() async throws {
        let items = (1...3).map { Item(guid: "n\($0)", title: "New \($0)", day: $0) }
        try await subscribe("n.xml", "Unheard", items)
        for e in try await json(["episodes", "--json"]).sorted(by: { ($0["published"] as? Int ?? 0) < ($1["published"] as? Int ?? 0) }) {
            _ = try await cli.run(["queue", "add", String(e["id"] as? Int ?? 0)])
            let (run, out, err) = try await cli.run(["download"])
            XCTAssertEqual(run.code, 0, out + err)
        }
        let (set, said, serr) = try await cli.run(["set", "Unheard", "keep=1"])
        XCTAssertEqual(set.code, 0, serr)
        XCTAssertTrue(said.contains("cleanup by these rules: 0 played episode files (0 B) would be deleted; 2 not yet played are kept"), said)
        for _ in 0..<2 {
            let (again, aout, aerr) = try await cli.run(["download"])
            XCTAssertEqual(again.code, 0, aout + aerr)
        }
        XCTAssertEqual(files(dir.file("home/downloads/Unheard")).count, 3, "nothing unplayed is deleted")
        // The two older ones played: set says so, and the next run deletes them (the rules did not change).
        let older = try await json(["episodes", "--json"]).filter { ($0["title"] as? String) != "New 3" }.compactMap { ($0["id"] as? Int).map(Int64.init) }
        _ = try await QueueStore(path: dir.file("home/queue.sqlite")).library.setPlayed(episodeIds: older, played: true)
        let (_, preview, _) = try await cli.run(["set", "Unheard", "keep=1"])
        XCTAssertTrue(preview.contains("2 played episode files (8.0 KB) would be deleted") && preview.contains("podq cleanup --dry-run"), preview)
        let (_, dout, _) = try await cli.run(["download"])
        XCTAssertTrue(dout.contains("cleanup: deleted 2 files"), dout)
        XCTAssertEqual(files(dir.file("home/downloads/Unheard")), ["2026-11-03 New 3.mp3"])
    }

    func testSerialModeKeepsTheOldestUnplayedEpisodesAndCleansUpPlayedOnes() async throws {
        let items = (1...4).map { Item(guid: "e\($0)", title: "Chapter \($0)", day: $0) }
        try await subscribe("serial.xml", "Serial", items.reversed())
        let (set, _, err) = try await cli.run(["set", "Serial", "serial=2"])
        XCTAssertEqual(set.code, 0, err)
        let (refreshed, out, _) = try await cli.run(["refresh"])
        XCTAssertEqual(refreshed.code, 0)
        XCTAssertTrue(out.contains("Serial: not modified, 2 queued (serial)"), out)
        _ = try await cli.run(["download"])
        let folder = dir.file("home/downloads/Serial")
        XCTAssertEqual(files(folder), ["2026-11-01 Chapter 1.mp3", "2026-11-02 Chapter 2.mp3"])

        // Chapter 1 is played (the TUI's `m`): the next refresh takes chapter 3, and cleanup deletes 1.
        let store = try QueueStore(path: dir.file("home/queue.sqlite"))
        let storedEpisodes = try await store.library.episodes().first { $0.episode.title == "Chapter 1" }?.episode.id
        let chapter1 = try XCTUnwrap(storedEpisodes)
        _ = try await store.library.setPlayed(episodeIds: [chapter1], played: true)
        let (again, aout, _) = try await cli.run(["refresh"])
        XCTAssertEqual(again.code, 0)
        XCTAssertTrue(aout.contains("1 queued (serial)"), aout)
        let (run, dout, derr) = try await cli.run(["download"])
        XCTAssertEqual(run.code, 0, dout + derr)
        XCTAssertEqual(files(folder), ["2026-11-02 Chapter 2.mp3", "2026-11-03 Chapter 3.mp3"], "played chapter 1 cleaned up after the run")
    }

    func testItsOwnFolderTemplateAndHook() async throws {
        try await subscribe("o.xml", "Own", [Item(guid: "o7", title: "Seven", day: 7)])
        let script = dir.file("hook.sh")
        try "#!/bin/sh\necho \"$PODQ_SHA256 $1\" > \"\(dir.file("hook.out"))\"\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let (set, _, err) = try await cli.run([
            "set", "Own", "download-folder=\(dir.file("books"))",
            "file-name-template={podcast}/E{episode:02} {title}.{ext}", "on-complete=\(script) %f",
        ])
        XCTAssertEqual(set.code, 0, err)
        let listed = try await json(["episodes", "--json"])
        let id = try XCTUnwrap(listed.first?["id"] as? Int)
        _ = try await cli.run(["queue", "add", String(id)])
        let (run, out, derr) = try await cli.run(["download"])
        XCTAssertEqual(run.code, 0, out + derr)
        let path = dir.file("books/Own/E07 Seven.mp3")
        XCTAssertEqual(FileHash.sha256(path: path), PatternSource(seed: 7, length: 4000).sha256)
        let heard = try String(contentsOfFile: dir.file("hook.out"), encoding: .utf8)
        XCTAssertEqual(heard, "\(PatternSource(seed: 7, length: 4000).sha256) \(path)\n", "its own hook, with the SHA-256 it asked for")
    }
}

/// `playlist = true`: an M3U of each run's new downloads, written through the download folder.
final class PlaylistCommandTests: CLITestCase {
    func testARunWritesAPlaylistOfItsNewDownloadsAndNoneWhenNothingCompleted() async throws {
        try FileManager.default.createDirectory(atPath: dir.file("home"), withIntermediateDirectories: true)
        try "playlist = true\n".write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        let body = Array(
            """
            <?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>Listen</title>
            <item><title>Part\u{1B} one</title><guid>1</guid><pubDate>Sat, 21 Nov 2026 10:00:00 GMT</pubDate><itunes:duration>61</itunes:duration>
            <enclosure url="/data/p1.mp3?size=2000&amp;seed=3" type="audio/mpeg"/></item></channel></rss>
            """.utf8)
        server.serve(body, as: "show.xml")
        _ = try await cli.run(["add", server.url("/static/show.xml").absoluteString])
        _ = try await cli.run(["queue", "add", "1"])
        let (run, out, err) = try await cli.run([
            "download", server.dataURL(size: 1000, seed: 4, name: "pasted.mp3").absoluteString,
            server.dataURL(size: 1000, seed: 5, name: "%231-hit.mp3").absoluteString,
        ])
        XCTAssertEqual(run.code, 0, out + err)
        let folder = dir.file("home/downloads")
        let lists = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".m3u8") }
        XCTAssertEqual(lists.count, 1, "\(lists)")
        let list = try XCTUnwrap(lists.first)
        XCTAssertTrue(out.contains("playlist: \(folder)/\(list)"), out)
        let text = try String(contentsOfFile: folder + "/" + list, encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "#EXTM3U")
        XCTAssertEqual(lines.count, 7, text)
        XCTAssertTrue(lines.contains("#EXTINF:61,Listen - Part one"), "a duration, and no control character from the feed: \(text)")
        XCTAssertFalse(text.contains("\u{1B}"))
        XCTAssertTrue(lines.contains("Listen/2026-11-21 Part one.mp3"), "relative to the download folder: \(text)")
        XCTAssertTrue(lines.contains("pasted.mp3"), text)
        XCTAssertTrue(lines.contains("./#1-hit.mp3"), "a name that starts with # is not read as a comment: \(text)")

        let (again, _, _) = try await cli.run(["download"])
        XCTAssertEqual(again.code, 0)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".m3u8") }.count, 1,
            "a run that completed nothing writes none")
    }
}
