import Foundation
import PodqTestSupport
import XCTest

/// The ledger through the binary: a file downloaded, deleted and removed from the queue is not fetched
/// again when it comes back as a rerun or in another subscription; `mark-downloaded` seeds it.
final class LedgerCommandTests: CLITestCase {
    private func feed(_ items: [(guid: String, title: String, file: String)]) -> [UInt8] {
        let entries = items.map { item in
            "<item><title>\(item.title)</title><guid>\(item.guid)</guid><pubDate>Sat, 21 Nov 2026 10:00:00 GMT</pubDate>"
                + "<enclosure url=\"/data/\(item.file)?size=4000&amp;seed=7\" type=\"audio/mpeg\" length=\"4000\"/></item>"
        }.joined()
        return Array("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Ledger Show</title>\(entries)</channel></rss>".utf8)
    }

    private func queueTitles() async throws -> [String] {
        let (_, out, err) = try await cli.run(["queue", "--json"])
        let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]], err)
        return rows.compactMap { $0["title"] as? String }
    }

    func testAFileDownloadedThenDeletedIsNotQueuedAgainAsARerunOrInAnotherSubscription() async throws {
        server.serve(feed([("g1", "One", "one.mp3")]), as: "show.xml")
        let (added, _, addErr) = try await cli.run(["add", "--auto", server.url("/static/show.xml").absoluteString])
        XCTAssertEqual(added.code, 0, addErr)
        server.serve(feed([("g2", "Two", "two.mp3"), ("g1", "One", "one.mp3")]), as: "show.xml")
        let (refreshed, rout, _) = try await cli.run(["refresh"])
        XCTAssertEqual(refreshed.code, 0)
        XCTAssertTrue(rout.contains("1 new, 1 queued"), rout)
        let (run, dout, derr) = try await cli.run(["download"])
        XCTAssertEqual(run.code, 0, dout + derr)
        // The user deletes the file and the row.
        let path = dir.file("home/downloads/Ledger Show/2026-11-21 Two.mp3")
        try FileManager.default.removeItem(atPath: path)
        let (removed, _, rerr) = try await cli.run(["queue", "remove", "1"])
        XCTAssertEqual(removed.code, 0, rerr)
        let titles1 = try await queueTitles()
        XCTAssertEqual(titles1, [])

        // A rerun of Two (a new GUID, the same file) and a new Three.
        server.serve(
            feed([("g3", "Three", "three.mp3"), ("g2-rerun", "Encore: Two", "two.mp3"), ("g2", "Two", "two.mp3"), ("g1", "One", "one.mp3")]),
            as: "show.xml")
        let (again, aout, _) = try await cli.run(["refresh"])
        XCTAssertEqual(again.code, 0)
        XCTAssertTrue(aout.contains("2 new, 1 queued (1 downloaded before, not queued again)"), aout)
        let titles2 = try await queueTitles()
        XCTAssertEqual(titles2, ["Ledger Show — Three"])

        // The same show under a second feed URL, auto too: its new episodes that were downloaded are skipped.
        server.serve(feed([("m1", "One", "one.mp3")]), as: "mirror.xml")
        let (mirror, _, merr) = try await cli.run(["add", "--auto", server.url("/static/mirror.xml").absoluteString])
        XCTAssertEqual(mirror.code, 0, merr)
        server.serve(feed([("m2", "Two", "two.mp3"), ("m1", "One", "one.mp3")]), as: "mirror.xml")
        let (mref, mout, _) = try await cli.run(["refresh"])
        XCTAssertEqual(mref.code, 0)
        XCTAssertTrue(mout.contains("1 new, 0 queued (1 downloaded before, not queued again)"), mout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "nothing fetched it again")
    }

    func testMarkDownloadedSeedsTheLedger() async throws {
        server.serve(feed([("g2", "Two", "two.mp3"), ("g1", "One", "one.mp3")]), as: "show.xml")
        let (added, _, addErr) = try await cli.run(["add", "--auto", server.url("/static/show.xml").absoluteString])
        XCTAssertEqual(added.code, 0, addErr)
        let (listed, lout, _) = try await cli.run(["episodes", "--new"])
        XCTAssertEqual(listed.code, 0)
        XCTAssertTrue(lout.contains("One") && lout.contains("Two"), lout)

        let (marked, mout, merr) = try await cli.run(["mark-downloaded", "Ledger Show"])
        XCTAssertEqual(marked.code, 0, merr)
        XCTAssertTrue(mout.contains("marked 2 episodes as downloaded"), mout)
        let (twice, tout, _) = try await cli.run(["mark-downloaded", "1"])
        XCTAssertEqual(twice.code, 0)
        XCTAssertTrue(tout.contains("marked 0 episodes as downloaded (1 already in the ledger)"), tout)
        let (none, nout, _) = try await cli.run(["episodes", "--new"])
        XCTAssertEqual(none.code, 0)
        XCTAssertFalse(nout.contains("One") || nout.contains("Two"), nout)
        // The whole list says so too: not `new`, in the text and in the JSON.
        let (_, all, _) = try await cli.run(["episodes"])
        XCTAssertFalse(all.contains("new"), all)
        XCTAssertTrue(all.contains("downloaded"), all)
        let (_, json, _) = try await cli.run(["episodes", "--json"])
        let states = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]]).compactMap { $0["state"] as? String }
        XCTAssertEqual(states, ["downloaded", "downloaded"])

        server.serve(feed([("g1-rerun", "Encore: One", "one.mp3"), ("g2", "Two", "two.mp3"), ("g1", "One", "one.mp3")]), as: "show.xml")
        let (refreshed, rout, _) = try await cli.run(["refresh"])
        XCTAssertEqual(refreshed.code, 0)
        XCTAssertTrue(rout.contains("1 new, 0 queued (1 downloaded before, not queued again)"), rout)
        let titles3 = try await queueTitles()
        XCTAssertEqual(titles3, [])

        let (missing, _, missErr) = try await cli.run(["mark-downloaded", "999"])
        XCTAssertEqual(missing.code, 2, missErr)
        let (unknown, _, unknownErr) = try await cli.run(["mark-downloaded", "No Such Show"])
        XCTAssertEqual(unknown.code, 2, unknownErr)
    }
}

/// An episode updated upstream, through the binary: said by refresh, listed, and fetched again beside
/// the old file or in its place.
final class UpdatedUpstreamCommandTests: CLITestCase {
    private func feed(seed: Int) -> [UInt8] {
        Array(
            ("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Fixed Show</title>"
                + "<item><title>Pilot</title><guid>p1</guid><pubDate>Sat, 21 Nov 2026 10:00:00 GMT</pubDate>"
                + "<enclosure url=\"/data/pilot.mp3?size=30000&amp;seed=\(seed)\" type=\"audio/mpeg\" length=\"30000\"/></item>"
                + "</channel></rss>").utf8)
    }

    private func json(_ arguments: [String]) async throws -> [[String: Any]] {
        let (_, out, err) = try await cli.run(arguments)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]], out + err)
    }

    func testARepublishedFileIsSaidAndReplacedOrKeptBeside() async throws {
        server.serve(feed(seed: 1), as: "show.xml")
        _ = try await cli.run(["add", server.url("/static/show.xml").absoluteString])
        _ = try await cli.run(["queue", "add", "1"])
        let (run, out, err) = try await cli.run(["download"])
        XCTAssertEqual(run.code, 0, out + err)
        let path = dir.file("home/downloads/Fixed Show/2026-11-21 Pilot.mp3")
        XCTAssertEqual(FileHash.sha256(path: path), PatternSource(seed: 1, length: 30000).sha256)

        server.serve(feed(seed: 2), as: "show.xml")  // the publisher re-uploads a fixed file
        let (refreshed, rout, _) = try await cli.run(["refresh"])
        XCTAssertEqual(refreshed.code, 0)
        XCTAssertTrue(rout.contains("Fixed Show: 0 new; 1 downloaded episode updated upstream"), rout)
        let listed = try await json(["episodes", "--updated", "--json"])
        XCTAssertEqual(listed.count, 1)
        XCTAssertTrue((listed.first?["updatedUpstream"] as? String)?.contains("the feed now gives another file") == true)
        let (plain, _, _) = try await cli.run(["queue", "add", "1"])
        XCTAssertEqual(plain.code, 0, "without --again it says it is there")

        let (replaced, qout, qerr) = try await cli.run(["queue", "add", "--replace", "1"])
        XCTAssertEqual(replaced.code, 0, qerr)
        XCTAssertTrue(qout.contains("e1 → d2: "), qout)
        let (again, aout, aerr) = try await cli.run(["download"])
        XCTAssertEqual(again.code, 0, aout + aerr)
        XCTAssertTrue(aout.contains("completed d2 Fixed Show — Pilot -> \(path)"), "the new file took the old one's name: \(aout)")
        XCTAssertEqual(FileHash.sha256(path: path), PatternSource(seed: 2, length: 30000).sha256)
        let queue = try await json(["queue", "--json"])
        XCTAssertEqual(queue.map { $0["id"] as? Int }, [2], "the old row is gone")
        let after = try await json(["episodes", "--updated", "--json"])
        XCTAssertEqual(after.count, 0, "queued again: no longer flagged")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.file("home/downloads/Fixed Show")), ["2026-11-21 Pilot.mp3"])

        // Again, keeping both.
        server.serve(feed(seed: 3), as: "show.xml")
        _ = try await cli.run(["refresh"])
        _ = try await cli.run(["queue", "add", "--again", "1"])
        let (third, tout, terr) = try await cli.run(["download"])
        XCTAssertEqual(third.code, 0, tout + terr)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.file("home/downloads/Fixed Show")).sorted(),
            ["2026-11-21 Pilot (2).mp3", "2026-11-21 Pilot.mp3"])
        XCTAssertEqual(FileHash.sha256(path: path), PatternSource(seed: 2, length: 30000).sha256, "the old file is kept")
    }

    /// `--replace` deletes the old file only when it is the one podq downloaded: a file the user put at
    /// that name stays, and the new one keeps a name of its own.
    func testReplaceNeverDeletesAFileThatIsNotTheOnePodqWrote() async throws {
        server.serve(feed(seed: 1), as: "show.xml")
        _ = try await cli.run(["add", server.url("/static/show.xml").absoluteString])
        _ = try await cli.run(["queue", "add", "1"])
        _ = try await cli.run(["download"])
        let path = dir.file("home/downloads/Fixed Show/2026-11-21 Pilot.mp3")
        try FileManager.default.removeItem(atPath: path)
        try Data("the user's own file".utf8).write(to: URL(fileURLWithPath: path))
        server.serve(feed(seed: 2), as: "show.xml")
        _ = try await cli.run(["refresh"])
        _ = try await cli.run(["queue", "add", "--replace", "1"])
        let (run, out, err) = try await cli.run(["download"])
        XCTAssertEqual(run.code, 0, out + err)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "the user's own file")
        XCTAssertEqual(FileHash.sha256(path: dir.file("home/downloads/Fixed Show/2026-11-21 Pilot (2).mp3")), PatternSource(seed: 2, length: 30000).sha256)
    }
}

/// `podq refresh --check-files`: the server's file changed under the same URL.
final class CheckFilesCommandTests: CLITestCase {
    func testAFileReUploadedUnderTheSameURLIsFoundByAskingTheServer() async throws {
        let body = Array(
            ("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Same URL</title>"
                + "<item><title>Edited</title><guid>e</guid><pubDate>Sat, 21 Nov 2026 10:00:00 GMT</pubDate>"
                + "<enclosure url=\"/changing/edited.mp3?size=50000&amp;grow=1\" type=\"audio/mpeg\" length=\"50000\"/></item>"
                + "</channel></rss>").utf8)
        server.serve(body, as: "show.xml")
        _ = try await cli.run(["add", server.url("/static/show.xml").absoluteString])
        _ = try await cli.run(["queue", "add", "1"])
        let (run, out, err) = try await cli.run(["download"])
        XCTAssertEqual(run.code, 0, out + err)
        let (same, sout, _) = try await cli.run(["refresh", "--check-files"])
        XCTAssertEqual(same.code, 0)
        XCTAssertTrue(sout.contains("Same URL: 1 downloaded file checked with the server, 0 changed upstream"), sout)

        server.setVersion("edited.mp3", 2)  // re-uploaded: a later Last-Modified, 1,000 bytes longer; the feed unchanged
        let (plain, pout, _) = try await cli.run(["refresh"])
        XCTAssertEqual(plain.code, 0)
        XCTAssertFalse(pout.contains("updated upstream"), "the feed alone cannot tell: \(pout)")
        let (checked, cout, _) = try await cli.run(["refresh", "--check-files"])
        XCTAssertEqual(checked.code, 0)
        XCTAssertTrue(cout.contains("1 downloaded file checked with the server, 1 changed upstream (podq episodes --updated)"), cout)
        let (listed, lout, _) = try await cli.run(["episodes", "--updated"])
        XCTAssertEqual(listed.code, 0)
        XCTAssertTrue(lout.contains("the server's file changed on") && lout.contains("is 51000 bytes; podq downloaded 50000"), lout)
        let asked = server.log.requests.filter { $0.path == "/changing/edited.mp3" && $0.header("Range") == "bytes=0-0" }
        XCTAssertEqual(asked.count, 2, "one byte asked for, once per check")
    }
}
