import Foundation
import PodqSQLite
import PodqTestSupport
import XCTest

/// Inside the episodes, through the binary: transcripts that arrive as sidecars are indexed, one
/// fetched for an episode not downloaded is kept, `podq grep` finds a phrase across them with its
/// second, `podq reindex` reads what is already on disk.
final class TranscriptCommandTests: CLITestCase {
    private func serveShow(transcriptHost other: TestServer? = nil) {
        server.serve(
            Array(
                "WEBVTT\n\nNOTE made by a machine\n\n00:00:01.000 --> 00:00:04.000\n<v Alice>Welcome to the show.\n\n01:02:03.500 --> 01:02:07.000\nWe talk about climate change &amp; gardens.\n"
                    .utf8),
            as: "one.vtt", type: "text/vtt")
        let segments =
            #"{"version":"1.0.0","segments":[{"speaker":"Bob","startTime":12.5,"endTime":13,"body":"Climate"},{"speaker":"Bob","startTime":13,"endTime":13.4,"body":"change"},{"speaker":"Bob","startTime":13.4,"endTime":14,"body":"again."}]}"#
        (other ?? server).serve(Array(segments.utf8), as: "two.json", type: "application/json")
        let transcriptTwo = (other ?? server).url("/static/two.json").absoluteString
        let body = """
            <?xml version="1.0"?><rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0">
            <channel><title>Talk Show</title>
            <item><title>One</title><guid>1</guid><pubDate>Sat, 21 Nov 2026 10:00:00 GMT</pubDate>
              <enclosure url="/data/one.mp3?size=3000&amp;seed=1" type="audio/mpeg" length="3000"/>
              <podcast:transcript url="/static/one.vtt" type="text/vtt"/></item>
            <item><title>Two</title><guid>2</guid><pubDate>Sun, 22 Nov 2026 10:00:00 GMT</pubDate>
              <enclosure url="/data/two.mp3?size=3000&amp;seed=2" type="audio/mpeg" length="3000"/>
              <podcast:transcript url="\(transcriptTwo)" type="application/json"/></item>
            <item><title>Three</title><guid>3</guid><enclosure url="/data/three.mp3?size=3000&amp;seed=3" type="audio/mpeg"/></item>
            </channel></rss>
            """
        server.serve(Array(body.utf8), as: "show.xml")
    }

    func testAPhraseIsFoundAcrossSidecarsAndFetchedTranscriptsWithItsSecond() async throws {
        serveShow()
        try FileManager.default.createDirectory(atPath: dir.file("home"), withIntermediateDirectories: true)
        try "sidecars = true\n".write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        _ = try await cli.run(["add", server.url("/static/show.xml").absoluteString])
        // Episode 1 is downloaded: its transcript arrives as a sidecar and is indexed then.
        _ = try await cli.run(["queue", "add", "1"])
        let run = try await printed(["download"])
        XCTAssertEqual(run.code, 0, "\(run)")

        let first = try await printed(["grep", "climate", "chan"])
        XCTAssertEqual(first.code, 0, "\(first)")
        XCTAssertEqual(first.out, "Talk Show — One (e1, 2026-11-21)\n   1:02:03  We talk about [climate change] & gardens.\n")

        // Episode 2 is not downloaded: `podq transcript` fetches it from the feed, keeps and indexes it.
        let two = try await printed(["transcript", "e2"])
        XCTAssertEqual(two.code, 0, "\(two)")
        XCTAssertEqual(two.out, "0:00:12  Bob: Climate change again.\n")
        let again = try await printed(["grep", "Climate", "change", "--json"])
        let hits = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(again.out.utf8)) as? [[String: Any]])
        XCTAssertEqual(hits.map { $0["episode"] as? Int }, [2, 1], "newest episode first")
        XCTAssertEqual(hits.map { $0["start"] as? Double }, [12.5, 3723.5])
        XCTAssertEqual(hits.map { $0["time"] as? String }, ["0:00:12", "1:02:03"])
        XCTAssertEqual(hits[0]["text"] as? String, "Bob: Climate change again.")
        XCTAssertEqual((hits[0]["matches"] as? [[String: Int]])?.first, ["offset": 5, "length": 14])
        XCTAssertEqual(hits[1]["title"] as? String, "One")

        // Nothing found: exit 1, said on standard error.
        let none = try await printed(["grep", "tomatoes"])
        XCTAssertEqual(none.code, 1)
        XCTAssertEqual(none.out, "")
        XCTAssertTrue(none.err.contains("no transcript of the 2 indexed says “tomatoes”"), none.err)
        // An episode whose feed links none: a true error.
        let three = try await printed(["transcript", "e3"])
        XCTAssertEqual(three.code, 2, "\(three)")
        XCTAssertTrue(three.err.contains("e3 has no transcript"), three.err)

        // A server that answers with a page: a true error, exit 1, nothing indexed from the page.
        server.serve(Array("<html><body><p>Please log in</p></body></html>".utf8), as: "two.json", type: "application/json")
        let page = try await printed(["transcript", "e2", "--refresh"])
        XCTAssertEqual(page.code, 1, "\(page)")
        XCTAssertTrue(page.err.contains("the transcript of e2 (") && page.err.contains("cannot be read: it is not the JSON of Podcasting 2.0"), page.err)
        let loggedIn = try await printed(["grep", "log", "in"])
        XCTAssertEqual(loggedIn.code, 1, "the page's words were not indexed")

        // The index emptied (a home from before it): `podq reindex` reads the sidecar on disk again,
        // and the transcript kept in the store.
        try await DatabaseQueue(path: dir.file("home/queue.sqlite")).write { db in
            try db.execute(sql: "DELETE FROM transcript_cue; DELETE FROM transcript WHERE body IS NULL")
        }
        let lost = try await printed(["grep", "welcome"])
        XCTAssertEqual(lost.code, 1)
        let reindexed = try await printed(["reindex"])
        XCTAssertEqual(reindexed.code, 0, "\(reindexed)")
        XCTAssertEqual(reindexed.out, "indexed 2 transcripts (3 cues)\n")
        let welcome = try await printed(["grep", "welcome"])
        XCTAssertEqual(welcome.out, "Talk Show — One (e1, 2026-11-21)\n   0:00:01  Alice: [Welcome] to the show.\n")
        let filtered = try await printed(["grep", "climate", "--podcast", "p1"])
        XCTAssertEqual(filtered.code, 0, "\(filtered)")
    }

    /// The podcast's login goes only to its feed's origin: a transcript on another host is fetched without it.
    func testAFetchedTranscriptOnAnotherHostGetsNoLogin() async throws {
        let other = try await TestServer.start(host: "127.0.0.2")
        defer { Task { await other.stop() } }
        serveShow(transcriptHost: other)
        server.requireLogin(user: "me", password: "s3cret-pass")
        var components = URLComponents(url: server.url("/static/show.xml"), resolvingAgainstBaseURL: false)!
        components.user = "me"
        components.password = "s3cret-pass"
        let added = try await printed(["add", components.url!.absoluteString])
        XCTAssertEqual(added.code, 0, "\(added)")
        let two = try await printed(["transcript", "e2"])
        XCTAssertEqual(two.code, 0, "\(two)")
        XCTAssertFalse(other.log.requests.isEmpty)
        for request in other.log.requests { XCTAssertNil(request.header("Authorization"), "no login to another origin") }
        XCTAssertFalse((two.out + two.err).contains("s3cret-pass"))
    }
}
