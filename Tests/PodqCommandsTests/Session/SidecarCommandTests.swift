import Foundation
import PodqTestSupport
import XCTest

/// Offline-complete episodes through the binary: transcript, chapters, image and metadata beside the
/// file, what cannot be fetched left out and logged, and a hook that finds them in place.
final class SidecarCommandTests: CLITestCase {
    private let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 100)

    func testSidecarsAreWrittenBesideTheFileBeforeTheHookRuns() async throws {
        server.serve(Array("WEBVTT\n\n00:00.000 --> 00:01.000\nHello\n".utf8), as: "t1.vtt", type: "text/vtt")
        server.serve(Array("<p>Hello</p>".utf8), as: "t1.html", type: "text/html")
        server.serve(Array(#"{"version":"1.2.0","chapters":[{"startTime":0,"title":"Intro"}]}"#.utf8), as: "c1.json", type: "application/json+chapters")
        server.serve(png, as: "art.png", type: "image/png")
        server.serve(Array("not json".utf8), as: "c2.json", type: "application/json")
        server.serve(Array("<html>no image</html>".utf8), as: "art2.png", type: "image/png")
        let body = Array(
            """
            <?xml version="1.0"?><rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
            <channel><title>Offline Show</title><itunes:image href="/static/art.png"/>
            <item><title>One</title><guid>1</guid><pubDate>Sat, 21 Nov 2026 10:00:00 GMT</pubDate><description>&lt;p&gt;Notes &amp;amp; more&lt;/p&gt;</description>
              <enclosure url="/data/one.mp3?size=3000&amp;seed=1" type="audio/mpeg" length="3000"/>
              <podcast:transcript url="/static/t1.html" type="text/html"/><podcast:transcript url="/static/t1.vtt" type="text/vtt" language="en"/>
              <podcast:chapters url="/static/c1.json" type="application/json+chapters"/></item>
            <item><title>Two</title><guid>2</guid><pubDate>Fri, 20 Nov 2026 10:00:00 GMT</pubDate><itunes:image href="/static/art2.png"/>
              <enclosure url="/data/two.mp3?size=3000&amp;seed=2" type="audio/mpeg" length="3000"/>
              <podcast:chapters url="/static/c2.json" type="application/json+chapters"/><podcast:transcript url="/static/missing.srt" type="application/x-subrip"/></item>
            <item><title>Three</title><guid>3</guid><pubDate>Thu, 19 Nov 2026 10:00:00 GMT</pubDate><itunes:image href="/data/huge.jpg?size=20000001"/>
              <enclosure url="/data/three.mp3?size=3000&amp;seed=3" type="audio/mpeg" length="3000"/></item>
            </channel></rss>
            """.utf8)
        server.serve(body, as: "show.xml")
        try FileManager.default.createDirectory(atPath: dir.file("home"), withIntermediateDirectories: true)
        let script = dir.file("hook.sh")
        try "#!/bin/sh\nls \"$(dirname \"$1\")\" > \"$1.seen\"\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        try "sidecars = true\non-complete = \"\(script)\"\n".write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        _ = try await cli.run(["add", server.url("/static/show.xml").absoluteString])
        _ = try await cli.run(["queue", "add", "1", "2", "3"])
        let (run, out, err) = try await cli.run(["download"])
        XCTAssertEqual(run.code, 0, out + err)

        let folder = dir.file("home/downloads/Offline Show")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        XCTAssertEqual(
            names,
            [
                "2026-11-19 Three.json", "2026-11-19 Three.mp3", "2026-11-19 Three.mp3.seen", "2026-11-20 Two.json", "2026-11-20 Two.mp3",
                "2026-11-20 Two.mp3.seen",
                "2026-11-21 One.chapters.json", "2026-11-21 One.json", "2026-11-21 One.mp3", "2026-11-21 One.mp3.seen",
                "2026-11-21 One.png", "2026-11-21 One.vtt",
            ])
        XCTAssertEqual(
            try String(contentsOfFile: folder + "/2026-11-21 One.vtt", encoding: .utf8), "WEBVTT\n\n00:00.000 --> 00:01.000\nHello\n",
            "the preferred type, not the first listed")
        XCTAssertEqual(try Array(Data(contentsOf: URL(fileURLWithPath: folder + "/2026-11-21 One.png"))), png, "the podcast's image for an episode without one")
        let seen = try String(contentsOfFile: folder + "/2026-11-21 One.mp3.seen", encoding: .utf8)
        XCTAssertTrue(seen.contains("2026-11-21 One.json") && seen.contains("2026-11-21 One.vtt"), "the hook ran after the sidecars: \(seen)")

        let meta = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/2026-11-21 One.json"))) as? [String: Any])
        XCTAssertEqual(meta["title"] as? String, "One")
        XCTAssertEqual(meta["file"] as? String, "2026-11-21 One.mp3")
        XCTAssertEqual(meta["transcript"] as? String, "2026-11-21 One.vtt")
        XCTAssertEqual(meta["chapters"] as? String, "2026-11-21 One.chapters.json")
        XCTAssertEqual(meta["image"] as? String, "2026-11-21 One.png")
        XCTAssertEqual(meta["description"] as? String, "Notes & more", "show notes as plain text")
        XCTAssertEqual(meta["published"] as? String, "2026-11-21T10:00:00Z")
        XCTAssertEqual(meta["verifiedBy"] as? String, "length")
        XCTAssertEqual((meta["podcast"] as? [String: Any])?["title"] as? String, "Offline Show")
        let two = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/2026-11-20 Two.json"))) as? [String: Any])
        XCTAssertTrue(two["chapters"] is NSNull && two["image"] is NSNull && two["transcript"] is NSNull, "\(two)")
        let log = try String(contentsOfFile: dir.file("home/podq.log"), encoding: .utf8)
        XCTAssertTrue(log.contains("kind=chapters reason=\"it is not JSON\""), log)
        XCTAssertTrue(log.contains("kind=image reason=\"it is not a JPEG, PNG, WebP or GIF image\""), log)
        XCTAssertTrue(log.contains("sidecar not fetched") && log.contains("kind=transcript"), log)
        XCTAssertTrue(log.contains("kind=image reason=\"it is larger than 20 MB, the most podq fetches for it\""), log)
    }

    /// A transcript that trickles a byte every 2 s: the run (and the queue's lock, and cron) waits no
    /// longer than fetch-timeout for it, then goes on without it and says why.
    func testASidecarThatTricklesEndsAtFetchTimeout() async throws {
        let head = Array("HTTP/1.1 200 OK\r\nContent-Type: text/vtt\r\nContent-Length: 1000\r\n\r\n".utf8)
        let body = Array(repeating: UInt8(ascii: "x"), count: 1000)
        // The head at once, then the body a byte every 2 s: never a stall of stall-timeout.
        let trickle = try await ScriptedServer.start(
            ScriptedServer.Script(
                [ScriptedServer.Piece(head)]
                    + body.map { ScriptedServer.Piece([$0], after: .seconds(2)) }))
        defer { Task { await trickle.stop() } }
        let feed = Array(
            """
            <?xml version="1.0"?><rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel><title>Slow</title>
            <item><title>One</title><guid>1</guid><enclosure url="/data/one.mp3?size=3000&amp;seed=1" type="audio/mpeg"/>
              <podcast:transcript url="\(trickle.url("/t.vtt"))" type="text/vtt"/></item></channel></rss>
            """.utf8)
        server.serve(feed, as: "slow.xml")
        try FileManager.default.createDirectory(atPath: dir.file("home"), withIntermediateDirectories: true)
        try "sidecars = true\nfetch-timeout = 3\nstall-timeout = 5\n".write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        _ = try await cli.run(["add", server.url("/static/slow.xml").absoluteString])
        _ = try await cli.run(["queue", "add", "1"])
        let (run, out, err) = try await cli.run(["download"], timeout: 60)
        XCTAssertEqual(run.code, 0, out + err)
        let log = try String(contentsOfFile: dir.file("home/podq.log"), encoding: .utf8)
        XCTAssertTrue(log.contains("within 3 s (fetch-timeout)"), log)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("home/downloads/Slow/One.vtt")))
    }
}
