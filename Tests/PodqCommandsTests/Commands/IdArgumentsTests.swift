import Foundation
import PodqTestSupport
import XCTest

/// Podcasts, episodes and downloads are numbered apart, so podq prints each id with its letter (`p1`,
/// `e2`, `d3`) and every command reads the letters: through the binary, on a home where episode 2's
/// download is d3 and d2 is a URL's, the case a bare number confused (issue 41, point 4).
final class IdArgumentsTests: CLITestCase {
    private var played: [String] {
        ((try? String(contentsOfFile: dir.file("played.txt"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// d1, d2 from URLs; p1 with three episodes; e2's download is d3 (completed). Returns e2's title.
    private func home() async throws {
        try FileManager.default.createDirectory(atPath: cli.home, withIntermediateDirectories: true)
        let player = dir.file("player.sh")
        try "#!/bin/sh\necho \"$*\" >> '\(dir.file("played.txt"))'\n".write(toFile: player, atomically: true, encoding: .utf8)
        chmod(player, 0o755)
        try "player = \"\(player)\"\n".write(toFile: cli.home + "/config", atomically: true, encoding: .utf8)
        let urls = ["a.mp3", "b.mp3"].map { server.dataURL(size: 1000, name: $0).absoluteString }
        let got = try await cli.run(["download", "--download-dir", dir.file("urls")] + urls)
        XCTAssertEqual(got.exit.code, 0, got.err)
        let items = (1...3).map { i in
            """
            <item><title>Part \(i)</title><guid>g\(i)</guid><pubDate>0\(i) Sep 2025 10:00:00 GMT</pubDate>
            <enclosure url="/data/part\(i).mp3?size=1500&amp;seed=\(i)" type="audio/mpeg" length="1500"/></item>
            """
        }
        server.serve(Array(#"<rss version="2.0"><channel><title>Show</title>\#(items.joined())</channel></rss>"#.utf8), as: "show.xml")
        let added = try await cli.run(["add", server.url("/static/show.xml").absoluteString])
        XCTAssertEqual(added.exit.code, 0, added.err)
        XCTAssertTrue(added.out.hasPrefix("added podcast p1 Show"), added.out)
    }

    /// The id podq gave the episode titled `title`.
    private func episode(_ title: String) async throws -> Int64 {
        let listed = try await cli.run(["episodes", "--json"])
        let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.out.utf8)) as? [[String: Any]])
        return try XCTUnwrap(rows.first { $0["title"] as? String == title }?["id"] as? Int).int64
    }

    func testEveryIdIsPrintedWithItsLetterAndReadByEveryCommand() async throws {
        try await home()
        let e2 = try await episode("Part 2")
        let queued = try await cli.run(["queue", "add", "e\(e2)"])
        XCTAssertEqual(queued.exit.code, 0, queued.err)
        XCTAssertTrue(queued.out.hasPrefix("e\(e2) → d3: Show — Part 2 -> "), queued.out)
        let ran = try await cli.run(["download"])
        XCTAssertEqual(ran.exit.code, 0, ran.err)
        XCTAssertTrue(ran.out.contains("completed d3 Show — Part 2"), ran.out)

        // The lists: every id with its letter.
        let episodes = try await cli.run(["episodes"])
        XCTAssertTrue(episodes.out.split(separator: "\n").contains { $0.hasPrefix("e\(e2)  ") && $0.contains("completed") }, episodes.out)
        let queue = try await cli.run(["queue"])
        XCTAssertEqual(queue.out.split(separator: "\n").map { String($0.prefix(2)) }, ["d1", "d2", "d3"], queue.out)
        let feeds = try await cli.run(["feeds"])
        XCTAssertTrue(feeds.out.hasPrefix("p1  Show"), feeds.out)

        // play: a bare number is a download; `e2` is episode 2's file, whatever its download's number.
        for (argument, file) in [("e\(e2)", "Show/2025-09-02 Part 2.mp3"), ("d2", "urls/b.mp3"), ("2", "urls/b.mp3"), ("d3", "Show/2025-09-02 Part 2.mp3")] {
            let play = try await cli.run(["play", argument])
            XCTAssertEqual(play.exit.code, 0, "play \(argument): \(play.err)")
            XCTAssertTrue(played.last?.hasSuffix(file) == true, "play \(argument) played \(played.last ?? "nothing"), not \(file)")
        }

        // mark-played takes episodes, a download's episode, or a podcast: `podq episodes` then says played.
        let marked = try await cli.run(["mark-played", "d3"])
        XCTAssertEqual(marked.exit.code, 0, marked.err)
        let after = try await cli.run(["episodes"])
        XCTAssertTrue(
            after.out.split(separator: "\n").contains { $0.hasPrefix("e\(e2)  ") && $0.contains("played") && !$0.contains("completed") },
            "a played, downloaded episode says played, as the TUI and --json do: \(after.out)")
        let all = try await cli.run(["mark-played", "p1"])
        XCTAssertTrue(all.out.hasPrefix("marked 2 episodes played (1 already played)"), all.out)

        // queue add: a bare number is an episode; d3 is the episode it downloads.
        for argument in ["\(e2)", "e\(e2)", "d3"] {
            let again = try await cli.run(["queue", "add", argument])
            XCTAssertEqual(again.exit.code, 0, again.err)
            XCTAssertTrue(again.out.hasPrefix("e\(e2): already downloaded as d3: Show — Part 2 -> "), "queue add \(argument): \(again.out)")
        }
        let fresh = try await cli.run(["queue", "add", "--again", "d3"])
        XCTAssertTrue(fresh.out.hasPrefix("e\(e2) → d4: "), "--again d3 takes d3's episode: \(fresh.out)")

        // What cannot be is said, with what to type.
        for (arguments, message) in [
            (["queue", "add", "p1"], "p1 is a podcast: `podq queue add --latest 5 p1` queues its newest 5"),
            (["queue", "add", "d1"], "d1 was added by its URL: it is no podcast's episode"),
            (["queue", "pause", "e1"], "is not in the queue: `podq queue add e"),
            (["play", "p1"], "p1 is a podcast; give a download (d7"),
            (["refresh", "e1"], "e1 is an episode; give a podcast: p3, its title or its feed URL"),
            (["mark-played", "e99"], "There is no episode e99"),
            (["play", "d99"], "There is no download d99"),
            (["refresh", "p9"], "No subscription matches 'p9'"),
        ] {
            let refused = try await cli.run(arguments)
            XCTAssertEqual(refused.exit.code, 2, "\(arguments): \(refused.err)")
            XCTAssertTrue(refused.err.contains(message), "\(arguments): \(refused.err)")
        }

        // The help of each command says which kind it takes.
        for (command, kinds) in [
            (["play"], ["d7", "e12"]), (["queue", "pause"], ["d7", "e12"]), (["queue", "add"], ["e12", "d7", "p3"]), (["mark-played"], ["e12", "p3"]),
        ] {
            let help = try await cli.run(["help"] + command)
            for kind in kinds { XCTAssertTrue(help.out.contains(kind), "podq help \(command.joined(separator: " ")) names \(kind): \(help.out)") }
        }
    }

    func testTheSameURLOrEpisodeTwiceInOneCommandIsQueuedOnce() async throws {
        try await home()
        let url = server.dataURL(size: 1000, name: "twice.mp3").absoluteString
        let added = try await cli.run(["queue", "add", url, url, "1", "e1", "1"])
        XCTAssertEqual(added.exit.code, 0, added.err)
        XCTAssertEqual(added.out.components(separatedBy: " → d").count - 1, 1, "episode 1 once: \(added.out)")
        XCTAssertEqual(added.out.components(separatedBy: "added d").count - 1, 1, "the URL once: \(added.out)")
        XCTAssertTrue(added.out.contains("e1 was given more than once: queued once"), added.out)
        XCTAssertTrue(added.out.contains("\(url) was given more than once: queued once"), added.out)
        let queue = try await cli.run(["queue", "--json"])
        let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(queue.out.utf8)) as? [[String: Any]])
        XCTAssertEqual(rows.count, 4, "d1, d2 and the two new ones: \(queue.out)")
        let ran = try await cli.run(["download", url, url])
        XCTAssertEqual(ran.exit.code, 0, ran.err)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: cli.home + "/downloads").filter { $0.hasPrefix("twice") }, ["twice.mp3"])
    }
}

extension Int {
    fileprivate var int64: Int64 { Int64(self) }
}
