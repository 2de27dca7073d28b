import Foundation
import PodqTestSupport
import XCTest

/// The main listings and the commonest errors, compared whole (issue 31, point 6): a column that
/// moves, a word that changes or a line that goes to the wrong stream fails here, where a test that
/// looks for one substring would not notice. The server's port, the temporary folder and the refresh
/// time are the only parts replaced before comparing.
final class ListingOutputTests: CLITestCase {
    private let feed = """
        <?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>Golden Show</title>
        <item><title>First light</title><guid>g1</guid><pubDate>1 Nov 2026 10:00:00 GMT</pubDate><itunes:duration>1800</itunes:duration>\
        <enclosure url="http://127.0.0.1:9/one.mp3" type="audio/mpeg" length="4000"/></item>
        <item><title>Second wind</title><guid>g2</guid><pubDate>2 Nov 2026 10:00:00 GMT</pubDate><itunes:duration>3725</itunes:duration>\
        <enclosure url="http://127.0.0.1:9/two.mp3" type="audio/mpeg" length="52000000"/></item>
        </channel></rss>
        """

    private func run(_ args: [String]) async throws -> (code: Int32?, out: String, err: String) {
        let got = try await printed(args)
        return (got.code, got.out, got.err)
    }

    private func subscribe() async throws {
        server.serve(Array(feed.utf8), as: "golden.xml")
        try await assertPrints(["add", server.url("/static/golden.xml").absoluteString], out: "added podcast p1 Golden Show: 2 episodes\n")
    }

    func testFeedsEpisodesAndTheQueueAsTheyArePrinted() async throws {
        try await subscribe()
        try await assertPrints(["feeds"], out: "p1  Golden Show  2 episodes  <server>/static/golden.xml\n")
        try await assertPrints(
            ["episodes"],
            out: """
                e2  2026-11-02  new         Golden Show — Second wind
                e1  2026-11-01  new         Golden Show — First light

                """)
        var result = try await run(["queue", "add", "2"])
        XCTAssertEqual(result.code, 0)
        try await assertPrints(["queue"], out: "d1  queued      Golden Show — Second wind  0 B / 52.0 MB\n")
        result = try await run(["episodes"])
        XCTAssertEqual(result.out.split(separator: "\n").first, "e2  2026-11-02  queued      Golden Show — Second wind")
        XCTAssertEqual(result.err, "")
    }

    func testTheJSONListingsWhole() async throws {
        try await subscribe()
        _ = try await run(["queue", "add", "2"])
        var result = try await run(["feeds", "--json"])
        XCTAssertEqual(
            result.out,
            #"[{"autoQueue":false,"episodes":2,"error":null,"id":1,"lastRefresh":<time>,"repairs":null,"settings":{},"title":"Golden Show","url":"<server>/static/golden.xml"}]"#
                + "\n")
        result = try await run(["queue", "--json"])
        XCTAssertEqual(
            result.out,
            #"[{"bytesExpected":52000000,"bytesReceived":0,"checksum":null,"error":null,"id":1,"path":"<dir>/home/downloads/Golden Show/2026-11-02 Second wind.mp3","podcast":"Golden Show","running":false,"sha256":null,"state":"queued","title":"Golden Show — Second wind","unverified":null,"url":"http://127.0.0.1:9/two.mp3","verifiedBy":null}]"#
                + "\n")
    }

    /// Each error: its whole text, on standard error only, and its exit code.
    func testTheCommonestErrorsWhole() async throws {
        try await subscribe()
        let cases: [([String], String)] = [
            (["queue", "add", "99"], "podq: There is no episode e99; `podq episodes` lists them.\n"),
            (["remove", "42"], "podq: No subscription matches '42'; `podq feeds` lists them (give its id as p3, its title or its feed URL).\n"),
            (["play", "7"], "podq: There is no download d7; `podq queue` lists them.\n"),
            (["queue", "pause", "99"], "podq: There is no download d99; `podq queue` lists them.\n"),
            (["mark-downloaded", "77"], "podq: There is no episode e77; `podq episodes` lists them.\n"),
            (["set", "Nope", "keep=1"], "podq: No subscription matches 'Nope'; `podq feeds` lists them (give its id as p3, its title or its feed URL).\n"),
            (
                ["episodes", "--podcast", "1"],
                "Error: Unknown option '--podcast' for `podq episodes`.\nSee 'podq episodes --help'.\n"
            ),
        ]
        for (args, expected) in cases {
            let result = try await run(args)
            XCTAssertEqual(result.err, expected, "podq \(args.joined(separator: " "))")
            XCTAssertEqual(result.out, "", "podq \(args.joined(separator: " ")) prints its error on standard error only")
            XCTAssertEqual(result.code, 2, "podq \(args.joined(separator: " "))")
        }
    }
}
