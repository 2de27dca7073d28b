import Crypto
import Foundation
import PodqTestSupport
import XCTest

/// Files checked against what their publisher and server say, through the real binary: each source
/// right and wrong, one refetch on a mismatch, a stale hash told from a host that inserts ads, and
/// the file always kept.
final class IntegrityCommandTests: CLITestCase {
    private func json(_ arguments: [String]) async throws -> [[String: Any]] {
        let (_, out, err) = try await cli.run(arguments)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]], err)
    }

    private func gets(_ path: String) -> Int { server.log.requests.filter { $0.path == path }.count }

    private static func sri(_ source: PatternSource) -> String { "sha256-" + Data(source.digest(using: SHA256.self)).base64EncodedString() }
    private static func md5(_ source: PatternSource) -> String { source.digest(using: Insecure.MD5.self).map { String(format: "%02x", $0) }.joined() }

    func testTheFeedsHashesVerifyAFileAndAWrongOneIsFetchedTwiceThenFlagged() async throws {
        let size: Int64 = 30000
        let right = PatternSource(seed: 61, length: size), media = PatternSource(seed: 62, length: size)
        let body = Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0" xmlns:media="http://search.yahoo.com/mrss/">
            <channel><title>Hashed</title>
            <item><title>SRI</title><guid>a</guid><pubDate>Sat, 21 Nov 2026 10:00:00 GMT</pubDate>
              <enclosure url="/data/a.mp3?size=\(size)&amp;seed=61" type="audio/mpeg" length="\(size)"/>
              <podcast:alternateEnclosure type="audio/mpeg" default="true"><podcast:source uri="/data/a.mp3?size=\(size)&amp;seed=61"/>
                <podcast:integrity type="sri" value="\(Self.sri(right))"/></podcast:alternateEnclosure></item>
            <item><title>Media</title><guid>b</guid><pubDate>Fri, 20 Nov 2026 10:00:00 GMT</pubDate>
              <enclosure url="/data/b.mp3?size=\(size)&amp;seed=62" type="audio/mpeg" length="\(size)"/>
              <media:hash algo="md5">\(Self.md5(media))</media:hash></item>
            <item><title>Stale</title><guid>c</guid><pubDate>Thu, 19 Nov 2026 10:00:00 GMT</pubDate>
              <enclosure url="/data/c.mp3?size=\(size)&amp;seed=63" type="audio/mpeg" length="\(size)"/>
              <podcast:integrity type="sri" value="\(Self.sri(right))"/></item>
            <item><title>Wrong md5</title><guid>d</guid><pubDate>Wed, 18 Nov 2026 10:00:00 GMT</pubDate>
              <enclosure url="/data/d.mp3?size=\(size)&amp;seed=64" type="audio/mpeg" length="\(size)"/>
              <media:hash>\(Self.md5(media))</media:hash></item>
            </channel></rss>
            """.utf8)
        server.serve(body, as: "show.xml")
        let (added, _, addErr) = try await cli.run(["add", server.url("/static/show.xml").absoluteString])
        XCTAssertEqual(added.code, 0, addErr)
        let ids = try await json(["episodes", "--json"]).compactMap { $0["id"] as? Int }.map(String.init)
        let (queued, _, qerr) = try await cli.run(["queue", "add"] + ids)
        XCTAssertEqual(queued.code, 0, qerr)
        let (run, out, err) = try await cli.run(["download"])
        XCTAssertEqual(run.code, 1, "an unverified file is not a silent success: \(out) \(err)")
        XCTAssertTrue(out.contains("4 completed, 0 failed"), out)
        XCTAssertTrue(out.contains("2 unverified"), out)
        XCTAssertTrue(out.contains("Hashed — Stale: the file's sha256 is "), out)

        let rows = Dictionary(
            uniqueKeysWithValues: try await json(["queue", "--json"]).map {
                (($0["title"] as? String ?? "").replacingOccurrences(of: "Hashed — ", with: ""), $0)
            })
        XCTAssertEqual(rows["SRI"]?["verifiedBy"] as? String, "sri-sha256")
        XCTAssertEqual(rows["Media"]?["verifiedBy"] as? String, "media-hash-md5")
        XCTAssertTrue(rows["SRI"]?["unverified"] is NSNull)
        for title in ["Stale", "Wrong md5"] {
            let row = try XCTUnwrap(rows[title])
            XCTAssertEqual(row["state"] as? String, "completed", "kept, never deleted")
            XCTAssertEqual(row["verifiedBy"] as? String, "unverified")
            let problem = try XCTUnwrap(row["unverified"] as? String)
            XCTAssertTrue(problem.contains("with the same bytes both times: the published hash is wrong or out of date"), problem)
            let path = try XCTUnwrap(row["path"] as? String)
            XCTAssertNotNil(FileHash.sha256(path: path), "the file is there")
        }
        XCTAssertTrue((rows["Stale"]?["unverified"] as? String)?.contains("the feed's podcast:integrity says") == true)
        XCTAssertTrue((rows["Wrong md5"]?["unverified"] as? String)?.contains("the feed's media:hash says") == true)
        XCTAssertEqual(gets("/data/a.mp3"), 1)
        XCTAssertEqual(gets("/data/c.mp3"), 2, "a mismatch is fetched once more from zero, and only once")
        XCTAssertEqual(gets("/data/d.mp3"), 2)
        for row in rows.values {
            let checksum = try XCTUnwrap(row["checksum"] as? String)
            XCTAssertTrue(checksum.hasPrefix("xxh3:") && checksum.count == 37, checksum)
        }
        XCTAssertEqual(rows["SRI"]?["sha256"] as? String, right.sha256, "the publisher's SHA-256 was computed")
        XCTAssertTrue(rows["Media"]?["sha256"] is NSNull, "no SHA-256 is computed unless someone needs it")
        let log = try String(contentsOfFile: dir.file("home/podq.log"), encoding: .utf8)
        XCTAssertTrue(log.contains("fetching the file once more from zero"), log)
        XCTAssertTrue(log.contains("download completed, unverified"), log)
    }

    func testTheServersDigestHeadersVerifyAFileRightOrWrong() async throws {
        let size: Int64 = 50000
        let cases: [(name: String, options: [String: String], verified: String)] = [
            ("repr.mp3", ["digest": "repr"], "repr-digest"),
            ("repr512.mp3", ["digest": "repr512"], "repr-digest"),
            ("content.mp3", ["digest": "content"], "content-digest"),
            ("gcs.mp3", ["digest": "gcs"], "gcs-md5"),
            ("plain.mp3", [:], "length"),
            ("chunked.mp3", ["chunked": "1"], "none"),
            ("bad-repr.mp3", ["digest": "repr", "digestOf": "999"], "unverified"),
            ("bad-gcs.mp3", ["digest": "gcs", "digestOf": "999"], "unverified"),
            ("ads.mp3", ["digest": "repr", "digestOf": "999", "vary": "1"], "unverified"),
            // Dropped at 20,000 bytes, resumed with a range: the kept prefix is read back once and hashed.
            ("resumed.mp3", ["digest": "repr", "dropFirst": "20000"], "repr-digest"),
        ]
        let urls = cases.enumerated().map { i, c in server.dataURL(size: size, seed: UInt64(70 + i), name: c.name, c.options).absoluteString }
        let (run, out, err) = try await cli.run(["download"] + urls)
        XCTAssertEqual(run.code, 1, out + err)
        XCTAssertTrue(out.contains("3 unverified"), out)
        let rows = try await json(["queue", "--json"])
        XCTAssertEqual(rows.count, cases.count)
        for (i, c) in cases.enumerated() {
            let row = try XCTUnwrap(rows.first { ($0["url"] as? String) == urls[i] })
            XCTAssertEqual(row["verifiedBy"] as? String, c.verified, c.name)
            XCTAssertEqual(row["state"] as? String, "completed", c.name)
        }
        let ads = try XCTUnwrap(rows.first { ($0["url"] as? String) == urls[8] }?["unverified"] as? String)
        XCTAssertTrue(ads.contains("with different bytes each time: the host changes the file on every request"), ads)
        XCTAssertTrue(ads.contains("the server's Repr-Digest says"), ads)
        XCTAssertEqual(gets("/data/ads.mp3"), 2, "two fetches, then it says why, never a loop")
        XCTAssertTrue(server.log.requests.contains { $0.path == "/data/resumed.mp3" && $0.header("Range") != nil }, "it was resumed")
        XCTAssertTrue(server.log.requests.allSatisfy { $0.header("Want-Repr-Digest") == "sha-256=5, sha-512=3" }, "podq asks for the digest")
    }

    /// With `checksum = sha256`, or an on-complete hook, the SHA-256 of every file is computed as it
    /// streams: stored, and given to the hook.
    func testSHA256IsComputedWhenTheConfigOrAHookAsks() async throws {
        let source = PatternSource(seed: 80, length: 40000)
        try FileManager.default.createDirectory(atPath: dir.file("home"), withIntermediateDirectories: true)
        let script = dir.file("hook.sh")
        try "#!/bin/sh\necho \"$PODQ_SHA256 $PODQ_VERIFIED\" > \"\(dir.file("hook.out"))\"\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        try "on-complete = \"\(script)\"\n".write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        let (run, out, err) = try await cli.run(["download", server.dataURL(size: 40000, seed: 80, name: "h.mp3", ["digest": "gcs"]).absoluteString])
        XCTAssertEqual(run.code, 0, out + err)
        let heard = try String(contentsOfFile: dir.file("hook.out"), encoding: .utf8)
        XCTAssertEqual(heard, "\(source.sha256) gcs-md5\n")
        var rows = try await json(["queue", "--json"])
        XCTAssertEqual(rows.first?["sha256"] as? String, source.sha256)
        XCTAssertTrue((rows.first?["checksum"] as? String)?.hasPrefix("xxh3:") == true)

        try "checksum = sha256\n".write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        let (second, out2, err2) = try await cli.run(["download", server.dataURL(size: 40000, seed: 81, name: "s.mp3").absoluteString])
        XCTAssertEqual(second.code, 0, out2 + err2)
        rows = try await json(["queue", "--json"])
        let row = try XCTUnwrap(rows.first { ($0["path"] as? String)?.hasSuffix("s.mp3") == true })
        XCTAssertEqual(row["checksum"] as? String, "sha256:" + PatternSource(seed: 81, length: 40000).sha256)

        try "checksum = md5\n".write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        let (bad, _, badErr) = try await cli.run(["queue"])
        XCTAssertEqual(bad.code, 4)
        XCTAssertTrue(badErr.contains("'checksum' must be xxh3 or sha256"), badErr)
    }
}

/// `podq verify` through the binary: a flipped byte, a deleted file, a link, by id and by podcast.
final class VerifyCommandTests: CLITestCase {
    private func json(_ arguments: [String]) async throws -> (Int32, [[String: Any]]) {
        let (exit, out, err) = try await cli.run(arguments)
        return (exit.code ?? -1, try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]], out + err))
    }

    /// A FIFO put where a completed file was: opened without blocking, reported, never waited on
    /// (a plain open would wait for a writer forever). And one at a podq.log: no command hangs.
    func testAFIFOInAFilesPlaceIsReportedNotWaitedOn() async throws {
        let url = server.dataURL(size: 50_000, seed: 3, name: "fifo.mp3").absoluteString
        let (run, out, err) = try await cli.run(["download", url])
        XCTAssertEqual(run.code, 0, out + err)
        try FileManager.default.removeItem(atPath: dir.file("home/downloads/fifo.mp3"))
        XCTAssertEqual(mkfifo(dir.file("home/downloads/fifo.mp3"), 0o644), 0)
        let (bad, badOut, badErr) = try await cli.run(["verify"], timeout: 30)
        XCTAssertEqual(bad.code, 1, badOut + badErr)
        XCTAssertTrue(badOut.contains("unreadable   d1 fifo.mp3"), badOut)

        try FileManager.default.removeItem(atPath: dir.file("home/podq.log"))
        XCTAssertEqual(mkfifo(dir.file("home/podq.log"), 0o600), 0)
        let (listed, lout, lerr) = try await cli.run(["queue"], timeout: 30)
        XCTAssertEqual(listed.code, 0, lout + lerr)
        let (again, aout, aerr) = try await cli.run(["download", server.dataURL(size: 5000, seed: 4, name: "b.mp3").absoluteString], timeout: 30)
        XCTAssertEqual(again.code, 0, aout + aerr)
    }

    func testAFlippedByteAndADeletedFileAreReportedAndTheRestIsOK() async throws {
        let urls = (1...4).map { server.dataURL(size: 300_000, seed: UInt64(90 + $0), name: "v\($0).mp3").absoluteString }
        let (run, out, err) = try await cli.run(["download"] + urls)
        XCTAssertEqual(run.code, 0, out + err)
        let (clean, cleanOut, _) = try await cli.run(["verify"])
        XCTAssertEqual(clean.code, 0, cleanOut)
        XCTAssertTrue(cleanOut.contains("4 files checked: 4 ok"), cleanOut)

        // One byte flipped in the middle (same size, same time: only the bytes tell), one file deleted,
        // one replaced by a link to a copy of itself.
        let flipped = dir.file("home/downloads/v2.mp3")
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: flipped))
        try handle.seek(toOffset: 150_000)
        let byte = try XCTUnwrap(handle.readData(ofLength: 1).first)
        try handle.seek(toOffset: 150_000)
        handle.write(Data([byte ^ 0x01]))
        try handle.close()
        try FileManager.default.removeItem(atPath: dir.file("home/downloads/v3.mp3"))
        try FileManager.default.moveItem(atPath: dir.file("home/downloads/v4.mp3"), toPath: dir.file("elsewhere.mp3"))
        try FileManager.default.createSymbolicLink(atPath: dir.file("home/downloads/v4.mp3"), withDestinationPath: dir.file("elsewhere.mp3"))

        let (bad, badOut, _) = try await cli.run(["verify"])
        XCTAssertEqual(bad.code, 1, badOut)
        XCTAssertTrue(badOut.contains("4 files checked: 1 ok, 1 changed, 1 missing, 1 unreadable"), badOut)
        XCTAssertTrue(badOut.contains("changed      d2 v2.mp3: \(flipped) differs from the file podq downloaded"), badOut)
        // With the next step: these are URL downloads, fetched again by their address.
        XCTAssertTrue(badOut.contains("To fetch the publisher's file again in its place: podq queue add --replace d2 && podq download"), badOut)
        XCTAssertTrue(badOut.contains("missing      d3 v3.mp3"), badOut)
        XCTAssertTrue(badOut.contains("unreadable   d4 v4.mp3"), badOut)

        let (code, rows) = try await json(["verify", "--json", "2", "1"])
        XCTAssertEqual(code, 1)
        XCTAssertEqual(rows.map { $0["result"] as? String }, ["ok", "changed"])
        let changed = rows[1]
        XCTAssertEqual(Set(changed.keys), ["id", "title", "path", "result", "expected", "found", "reason"])
        XCTAssertNotEqual(changed["expected"] as? String, changed["found"] as? String)
        XCTAssertTrue((changed["expected"] as? String)?.hasPrefix("xxh3:") == true)

        let (one, oneOut, _) = try await cli.run(["verify", "1"])
        XCTAssertEqual(one.code, 0, "only the file asked for: \(oneOut)")
        let (none, _, noneErr) = try await cli.run(["verify", "99"])
        XCTAssertEqual(none.code, 2, noneErr)
        let log = try String(contentsOfFile: dir.file("home/podq.log"), encoding: .utf8)
        XCTAssertTrue(log.contains("verify: changed"), log)
    }

    /// The command `podq verify` advises for a changed or missing file is run as printed, and fixes it:
    /// the publisher's bytes under the file's own name, no "(2)" copy, verify ok. For a feed episode and a
    /// URL's download alike. A file that another program put at the name is kept, and that is said.
    func testVerifysAdviceRunAsPrintedPutsThePublishersFileBackInItsPlace() async throws {
        let body = Array(
            """
            <rss version="2.0"><channel><title>Fix Show</title>
            <item><title>One</title><guid>1</guid><pubDate>01 Sep 2025 10:00:00 GMT</pubDate><enclosure url="/data/f1.mp3?size=200000&amp;seed=71" type="audio/mpeg"/></item>
            </channel></rss>
            """.utf8)
        server.serve(body, as: "fix.xml")
        let added = try await cli.run(["add", server.url("/static/fix.xml").absoluteString])
        XCTAssertEqual(added.exit.code, 0, added.err)
        let queued = try await cli.run(["queue", "add", "e1"])
        XCTAssertEqual(queued.exit.code, 0, queued.err)
        let url = server.dataURL(size: 150_000, seed: 72, name: "plain.mp3").absoluteString
        let first = try await cli.run(["download", url])
        XCTAssertEqual(first.exit.code, 0, first.err)
        let episodeFile = dir.file("home/downloads/Fix Show/2025-09-01 One.mp3"), urlFile = dir.file("home/downloads/plain.mp3")
        let originals = [episodeFile: PatternSource(seed: 71, length: 200_000).sha256, urlFile: PatternSource(seed: 72, length: 150_000).sha256]
        XCTAssertEqual(FileHash.sha256(path: episodeFile), originals[episodeFile])

        // Bit rot in the episode (the same file, one byte changed); the URL's file deleted.
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: episodeFile))
        try handle.seek(toOffset: 100_000)
        handle.write(Data([0x00, 0xFF, 0x00]))
        try handle.close()
        try FileManager.default.removeItem(atPath: urlFile)
        let verified = try await cli.run(["verify"])
        XCTAssertEqual(verified.exit.code, 1, verified.out)
        let advice = verified.out.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "in its place: ") else { return nil }
            return String(line[range.upperBound...])
        }
        XCTAssertEqual(advice, ["podq queue add --replace e1 && podq download", "podq queue add --replace d2 && podq download"], verified.out)
        for command in advice {
            for step in command.components(separatedBy: " && ") {
                let run = try await cli.run(Array(step.split(separator: " ").dropFirst().map(String.init)))
                XCTAssertEqual(run.exit.code, 0, "\(step): \(run.out) \(run.err)")
                XCTAssertFalse(run.out.contains("both are kept"), run.out)
            }
        }
        for (file, sha) in originals { XCTAssertEqual(FileHash.sha256(path: file), sha, "\(file) is the publisher's again") }
        let names = try FileManager.default.subpathsOfDirectory(atPath: dir.file("home/downloads")).filter { $0.hasSuffix(".mp3") }.sorted()
        XCTAssertEqual(names, ["Fix Show/2025-09-01 One.mp3", "plain.mp3"], "no second copy")
        let again = try await cli.run(["verify"])
        XCTAssertEqual(again.exit.code, 0, again.out)
        XCTAssertTrue(again.out.contains("2 files checked: 2 ok"), again.out)

        // Another file at the name (a new file, not podq's changed): both kept, and said on screen.
        try FileManager.default.removeItem(atPath: episodeFile)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: episodeFile))
        let replacing = try await cli.run(["queue", "add", "--replace", "e1"])
        XCTAssertEqual(replacing.exit.code, 0, replacing.err)
        let kept = try await cli.run(["download"])
        XCTAssertTrue(kept.out.contains("both are kept: the new file is \(dir.file("home/downloads/Fix Show/2025-09-01 One (2).mp3"))"), kept.out)
        XCTAssertEqual(try String(contentsOfFile: episodeFile, encoding: .utf8), "mine")
    }

    func testAPodcastsFilesAreVerifiedByItsTitle() async throws {
        let body = Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"><channel><title>Checked Show</title>
            <item><title>One</title><guid>1</guid><enclosure url="/data/c1.mp3?size=5000&amp;seed=95" type="audio/mpeg"/></item>
            </channel></rss>
            """.utf8)
        server.serve(body, as: "show.xml")
        let (added, _, addErr) = try await cli.run(["add", server.url("/static/show.xml").absoluteString])
        XCTAssertEqual(added.code, 0, addErr)
        let (_, episodes) = try await json(["episodes", "--json"])
        let id = try XCTUnwrap(episodes.first?["id"] as? Int)
        _ = try await cli.run(["queue", "add", String(id)])
        _ = try await cli.run(["download", server.dataURL(size: 1000, seed: 96, name: "other.mp3").absoluteString])
        let (code, rows) = try await json(["verify", "--json", "Checked Show"])
        XCTAssertEqual(code, 0)
        XCTAssertEqual(rows.map { $0["title"] as? String }, ["Checked Show — One"], "only that podcast's file")
        XCTAssertEqual(rows.first?["result"] as? String, "ok")
    }
}
