import Foundation
import PodqTestSupport
import XCTest

/// `podq sync` through the real binary against gpodder.net's shapes (MygpoTestServer: every device's
/// subscriptions as objects with `url`, actions of any kind) and a server's faults: an empty `200`, a
/// `500` to one batch, a `404` page to every upload, a refused subscription. Nothing queued is dropped
/// unless the server's receipt says it took it; what another device sent that podq cannot use is
/// skipped and said, never the whole answer.
final class SyncServerFaultsTests: CLITestCase {
    private var mygpo: MygpoTestServer!
    private let password = "pw-\(UUID().uuidString.prefix(8))-secret"
    private var printed: [String] = []

    override func setUp() async throws {
        try await super.setUp()
        mygpo = try await MygpoTestServer.start(user: "alice", password: password)
    }

    override func tearDown() async throws {
        await mygpo?.stop()
        try await super.tearDown()
    }

    private func podq(_ args: [String]) async throws -> (code: Int32?, out: String, err: String) {
        let (exit, out, err) = try await cli.run(args)
        printed += [out, err]
        return (exit.code, out, err)
    }

    /// A feed whose episodes have numeric GUIDs (`<base>1`, `<base>2`, …), each 1800 s long.
    private func feedBytes(_ title: String, base: Int, items: Int, as name: String) -> [UInt8] {
        let entries = (1...items).map { i in
            "<item><title>\(title) \(i)</title><guid isPermaLink=\"false\">\(base + i)</guid><pubDate>\(i % 28 + 1) Nov 2026 10:00:00 GMT</pubDate>"
                + "<itunes:duration>1800</itunes:duration><enclosure url=\"\(server.url("/data/\(name)\(i).mp3").absoluteString)?size=3000&amp;seed=\(i)\" "
                + "type=\"audio/mpeg\" length=\"3000\"/></item>"
        }.joined()
        return Array(
            ("<?xml version=\"1.0\"?><rss version=\"2.0\" xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\">"
                + "<channel><title>\(title)</title>\(entries)</channel></rss>").utf8)
    }

    /// ``feedBytes(_:base:items:as:)`` served as `name`: its URL.
    private func serveFeed(_ title: String, base: Int, items: Int, as name: String) -> String {
        server.serve(feedBytes(title, base: base, items: items, as: name), as: name)
        return server.url("/static/\(name)").absoluteString
    }

    private func login() async throws {
        try password.write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        let result = try await podq(["sync", "login", mygpo.url.absoluteString, "--user", "alice", "--password-command", "cat '\(dir.file("pw"))'"])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        XCTAssertTrue(result.out.contains("gpodder.net API"), result.out)
    }

    private func json(_ args: [String]) async throws -> Any {
        let (_, out, err) = try await podq(args + ["--json"])
        return try JSONSerialization.jsonObject(with: Data(out.utf8), options: .fragmentsAllowed) as Any? ?? { throw NSError(domain: err, code: 1) }()
    }

    private func episodes() async throws -> [[String: Any]] {
        let listed = try await json(["episodes"])
        return try XCTUnwrap(listed as? [[String: Any]])
    }

    private func status() async throws -> [String: Any] {
        let fields = try await json(["sync", "status"])
        return try XCTUnwrap(fields as? [String: Any])
    }

    /// The first sync on gpodder.net's shapes completes: the subscriptions listed as objects are adopted;
    /// a `flattr`, a fractional timestamp, a numeric GUID, an action without an episode and one from the
    /// year 9999 are each read or skipped, and the rest applies. A pull again changes nothing.
    func testTheFirstSyncReadsGpodderNetsShapes() async throws {
        let theirs = serveFeed("Theirs", base: 1000, items: 3, as: "theirs.xml")
        mygpo.phoneSubscribe(device: "phone", [theirs])
        let episode = { (i: Int) in self.server.url("/data/theirs.xml\(i).mp3").absoluteString }
        mygpo.addRaw(["podcast": theirs, "episode": episode(1), "action": "flattr", "timestamp": "2026-11-20T10:00:00", "device": "phone"])
        mygpo.addRaw([
            "podcast": theirs, "episode": "http://elsewhere.invalid/1.mp3", "guid": "1001", "action": "play", "timestamp": 1_795_000_000.5,
            "started": 0, "position": 300.7, "total": 1800, "device": "phone",
        ])
        mygpo.addRaw([
            "podcast": theirs, "episode": "http://elsewhere.invalid/2.mp3", "guid": 1002, "action": "PLAY", "timestamp": "2026-11-20T10:00:00+01:00",
            "started": 0, "position": 1800, "total": 1800, "device": "phone",
        ])
        mygpo.addRaw(["podcast": theirs, "action": "play", "timestamp": "2026-11-20T10:00:00", "position": 5])
        mygpo.addRaw([
            "podcast": theirs, "episode": episode(3), "guid": "1003", "action": "play", "timestamp": "9999-01-01T00:00:00", "position": 100,
            "total": 1800, "device": "phone",
        ])
        try await login()
        var result = try await podq(["sync"])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        XCTAssertTrue(result.out.contains("subscribed to Theirs"), result.out)
        XCTAssertTrue(result.out.contains("skipped 1 action of kinds podq does not use (flattr) and 1 it cannot read (no episode URL)"), result.out)
        XCTAssertTrue(result.out.contains("3 positions") && result.out.contains("1 marked played"), result.out)
        let listed = try await episodes()
        func field(_ guid: String, _ name: String) -> Any? { listed.first { ($0["guid"] as? String) == guid }?[name] }
        XCTAssertEqual(field("1001", "position") as? Int, 300)
        XCTAssertEqual(field("1002", "played") as? Bool, true)
        XCTAssertEqual(field("1003", "position") as? Int, 100)
        // The year-9999 play counted at the time it arrived: pulled again, it is not newer than itself.
        result = try await podq(["sync", "--full"])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        XCTAssertTrue(result.out.contains("received nothing new"), result.out)
        try assertNothingHolds(password, printed: printed)
    }

    /// An empty `200` and a `404` page to every upload take nothing: every change stays queued (exit 1,
    /// said), nothing is set aside, and the pull still runs; once the server works, all of it goes.
    func testNothingQueuedIsDroppedUnlessTheServerTookIt() async throws {
        let feed = serveFeed("Show", base: 2000, items: 3, as: "show.xml")
        try await login()
        _ = try await podq(["add", feed])
        let ids = try await episodes().compactMap { $0["id"] as? Int }.map { "e\($0)" }
        _ = try await podq(["mark-played"] + ids)
        let got1 = try await status()
        XCTAssertEqual(got1["pending"] as? Int, 4)

        mygpo.setFault(.emptyOK)
        var result = try await podq(["sync"])
        XCTAssertEqual(result.code, 1, result.out + result.err)
        XCTAssertTrue(result.out.contains("did not say it took") && result.out.contains("4 changes not taken, kept for the next sync"), result.out)
        XCTAssertFalse(result.out.contains("Nothing was lost") && !result.out.contains("not taken"), result.out)
        var now = try await status()
        XCTAssertEqual([now["pending"] as? Int, now["parked"] as? Int], [4, 0])
        XCTAssertFalse(now["lastPull"] is NSNull, "the pull ran after the push failed: \(now)")

        mygpo.setFault(.notFoundToAll)
        result = try await podq(["sync"])
        XCTAssertEqual(result.code, 1, result.out + result.err)
        XCTAssertTrue(result.out.contains("404"), result.out)
        now = try await status()
        XCTAssertEqual([now["pending"] as? Int, now["parked"] as? Int], [4, 0], "a 404 to everything sets nothing aside")

        mygpo.setFault(nil)
        result = try await podq(["sync"])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        XCTAssertTrue(result.out.contains("sent 1 subscription change and 3 episode actions"), result.out)
        let got2 = try await status()
        XCTAssertEqual(got2["pending"] as? Int, 0)
        XCTAssertEqual(mygpo.actions.filter { ($0["action"] as? String) == "play" && $0["device"] as? String != "phone" }.count, 3)
        let got3 = try await status()
        XCTAssertEqual(mygpo.subscriptions(of: try XCTUnwrap(got3["device"] as? String)), [feed])
    }

    /// A `500` to one batch keeps that batch and sends the others; the next sync sends the rest.
    func testAFailedBatchWaitsAndTheOthersGo() async throws {
        let feed = serveFeed("Long", base: 3000, items: 35, as: "long.xml")
        _ = try await podq(["add", feed])
        try await login()
        let got4 = try await podq(["sync"])
        XCTAssertEqual(got4.code, 0)
        let ids = try await episodes().compactMap { $0["id"] as? Int }.map { "e\($0)" }
        _ = try await podq(["mark-played"] + ids)
        mygpo.setFault(.failActionUpload(1))
        var result = try await podq(["sync"])
        XCTAssertEqual(result.code, 1, result.out + result.err)
        XCTAssertTrue(result.out.contains("sent 5 episode actions") && result.out.contains("30 changes not taken"), result.out)
        XCTAssertTrue(result.out.contains("500"), result.out)
        let got5 = try await status()
        XCTAssertEqual(got5["pending"] as? Int, 30)
        result = try await podq(["sync"])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        XCTAssertTrue(result.out.contains("sent 30 episode actions"), result.out)
        let got6 = try await status()
        XCTAssertEqual(got6["pending"] as? Int, 0)
    }

    /// A subscription the server refuses is set aside with its reason and blocks nothing; `podq sync
    /// pending` lists it, `retry` sends it again, `drop` forgets it; a feed from a local file is never
    /// sent; `logout` will not drop unsent changes without `--force`.
    func testARefusedChangeIsSetAsideAndBlocksNothing() async throws {
        let good = serveFeed("Good", base: 4000, items: 1, as: "good.xml")
        let refused = serveFeed("Refused", base: 5000, items: 1, as: "refused.xml")
        let local = dir.file("local.xml")
        try Data(feedBytes("Local", base: 6000, items: 1, as: "local.xml")).write(to: URL(fileURLWithPath: local))
        _ = try await podq(["add", good])
        _ = try await podq(["add", refused])
        _ = try await podq(["add", local])
        try await login()
        let got7 = try await status()
        XCTAssertEqual(got7["pending"] as? Int, 2, "the local file's feed is not queued: no server can take a path")
        mygpo.setFault(.refuseFeed("refused"))
        var result = try await podq(["sync"])
        XCTAssertEqual(result.code, 1, result.out + result.err)
        XCTAssertTrue(result.out.contains("sent 1 subscription change"), result.out)
        XCTAssertTrue(result.out.contains("the server refused 1 change, set aside: subscribe to \(refused) (400: Invalid URL)"), result.out)
        XCTAssertTrue(result.out.contains("podq sync pending lists them"), result.out)
        var listed = try await json(["sync", "pending"])
        var pending = try XCTUnwrap(listed as? [[String: Any]])
        XCTAssertEqual(pending.count, 1)
        XCTAssertEqual(pending.first?["setAside"] as? Bool, true)
        XCTAssertEqual(pending.first?["feed"] as? String, refused)
        XCTAssertTrue((pending.first?["reason"] as? String)?.contains("Invalid URL") == true, "\(pending)")
        let id = try XCTUnwrap(pending.first?["id"] as? String)

        // Set aside, it is not sent again; the sync says so (exit 1) until the user decides.
        mygpo.setFault(nil)
        result = try await podq(["sync"])
        XCTAssertEqual(result.code, 1, result.out + result.err)
        XCTAssertTrue(result.out.contains("sent nothing") && result.out.contains("1 change set aside before"), result.out)
        result = try await podq(["sync", "retry", id])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        XCTAssertTrue(result.out.contains("1 change will be sent again"), result.out)
        result = try await podq(["sync"])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        XCTAssertTrue(result.out.contains("sent 1 subscription change"), result.out)

        // Refused again, then dropped.
        mygpo.setFault(.refuseFeed("refused"))
        _ = try await podq(["remove", "Refused"])
        result = try await podq(["sync"])
        XCTAssertEqual(result.code, 1, result.out + result.err)
        listed = try await json(["sync", "pending"])
        pending = try XCTUnwrap(listed as? [[String: Any]])
        XCTAssertEqual(pending.map { $0["kind"] as? String }, ["unsubscribe"])
        result = try await podq(["sync", "drop", try XCTUnwrap(pending.first?["id"] as? String)])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        XCTAssertTrue(result.out.contains("dropped 1 change"), result.out)
        mygpo.setFault(nil)
        let got8 = try await podq(["sync"])
        XCTAssertEqual(got8.code, 0)

        // Logging out with a change never sent asks for --force, and says how many go.
        let ids = try await episodes().compactMap { $0["id"] as? Int }
        let got9 = try await podq(["mark-played", "e\(try XCTUnwrap(ids.first))"])
        _ = got9
        result = try await podq(["sync", "logout"])
        XCTAssertEqual(result.code, 2, result.out + result.err)
        XCTAssertTrue(result.err.contains("1 change never reached the server") && result.err.contains("--force"), result.err)
        let got10 = try await status()
        XCTAssertEqual(got10["loggedIn"] as? Bool, true)
        result = try await podq(["sync", "logout", "--force"])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        XCTAssertTrue(result.out.contains("dropped 1 change the server never took"), result.out)
        try assertNothingHolds(password, printed: printed)
    }

    /// A password command's first line is the password, whatever follows it on standard output (a
    /// megabyte) or on standard error.
    func testAPasswordCommandsFirstLineIsThePasswordWhateverFollows() async throws {
        try password.write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        let command = "cat '\(dir.file("pw"))'; echo; head -c 1048576 /dev/zero | tr '\\0' x; head -c 100000 /dev/zero | tr '\\0' y >&2"
        let result = try await podq(["sync", "login", mygpo.url.absoluteString, "--user", "alice", "--password-command", command])
        XCTAssertEqual(result.code, 0, String((result.out + result.err).prefix(2000)))
        // -v: each request and its answer, never a body or the login.
        let sync = try await podq(["sync", "-v"])
        XCTAssertEqual(sync.code, 0, sync.out + sync.err)
        XCTAssertTrue(sync.err.contains("sync request") && sync.err.contains("/api/2/episodes/alice.json") && sync.err.contains("status=200"), sync.err)
        try assertNothingHolds(password, printed: printed)
    }

    /// `podq download` syncs before it takes the queue's lock: while its sync adopts a slow feed,
    /// another `podq download` runs the queue (it is not told another podq holds it).
    func testADownloadSyncsBeforeItHoldsTheQueue() async throws {
        let slow = serveFeed("Slow", base: 8000, items: 1, as: "slow.xml")
        let path = String(slow.dropFirst(server.url("/").absoluteString.count - 1))
        mygpo.phoneSubscribe(device: "phone", [server.url("/redirect/1?to=\(path)&hopDelay=4").absoluteString])
        try await login()
        let first = try cli.start(["download"])
        // The first is adopting: the slow feed's first hop has been asked for.
        let adopting = await waitUntil(timeout: 20) { self.server.log.requests.contains { $0.path.hasPrefix("/redirect/") } }
        XCTAssertTrue(adopting, "\(mygpo.log)")
        let second = try await podq(["download", server.url("/data/one.mp3?size=2000").absoluteString])
        XCTAssertEqual(second.code, 0, second.out + second.err)
        XCTAssertTrue(second.err.contains("is syncing now"), "the second one's sync waits for nothing: " + second.err)
        let ended = await first.finish(timeout: 60)
        XCTAssertEqual(ended.code, 0, first.standardOutput + first.standardError)
        XCTAssertTrue(first.standardOutput.contains("subscribed to Slow"), first.standardOutput + first.standardError)
    }

    /// A long-lived account's answer, 120,000 actions and over 32 MB, is read as it arrives, in bounded
    /// memory: the first sync completes and applies what is this library's.
    func testALongLivedAccountsAnswerIsReadInBoundedMemory() async throws {
        let feed = serveFeed("Old", base: 9000, items: 2, as: "old.xml")
        _ = try await podq(["add", feed])
        var body = #"{"timestamp": 1795000000, "update_urls": [], "actions": ["#
        body.reserveCapacity(40 << 20)
        for i in 0..<120_000 {
            if i > 0 { body += "," }
            body +=
                #"{"podcast": "https://feeds.example.com/show\#(i % 500).xml", "episode": "https://cdn.example.com/show\#(i % 500)/episode-\#(i).mp3?source=rss&amp;id=\#(i)", "#
                + #""guid": "guid-\#(i)-0123456789abcdef", "action": "\#(i % 3 == 0 ? "play" : "download")", "timestamp": "2025-\#(String(format: "%02d", i % 12 + 1))-01T10:00:00", "#
                + #""started": 0, "position": \#(i % 1800), "total": 1800, "device": "phone-\#(i % 4)"}"#
        }
        body += #", {"podcast": "\#(feed)", "episode": "http://elsewhere.invalid/x.mp3", "guid": "9001", "action": "play", "#
        body += #""timestamp": "2026-11-20T10:00:00", "position": 77, "total": 1800}"#
        body += "]}"
        XCTAssertGreaterThan(body.utf8.count, 32 << 20)
        mygpo.answerActions(with: Array(body.utf8))
        try await login()
        let (exit, out, err) = try await cli.run(["sync"], timeout: 300)
        XCTAssertEqual(exit.code, 0, out + err)
        XCTAssertTrue(out.contains("received 1 position"), out)
        let listed = try await episodes()
        XCTAssertEqual(listed.first { ($0["guid"] as? String) == "9001" }?["position"] as? Int, 77)
        // Read as it arrives: podq's peak is not the answer's size (a debug build starts at ~40 MB).
        XCTAssertLessThan(exit.maxRSS, 110 << 20, "peak \(exit.maxRSS >> 20) MB for a \(body.utf8.count >> 20) MB answer")
    }

    /// Killed (SIGKILL) after the server stored a batch and before podq read the receipt: the next
    /// sync sends it again. The server may hold it twice (a play applies once); nothing is lost.
    func testAKillBetweenTheServersStoreAndPodqsReadLosesNothing() async throws {
        let feed = serveFeed("Show", base: 9500, items: 3, as: "kill.xml")
        _ = try await podq(["add", feed])
        try await login()
        let first = try await podq(["sync"])
        XCTAssertEqual(first.code, 0, first.out + first.err)
        let ids = try await episodes().compactMap { $0["id"] as? Int }.map { "e\($0)" }
        _ = try await podq(["mark-played"] + ids)
        mygpo.setFault(.storeThenHold(30))
        let syncing = try cli.start(["sync"])
        let stored = await waitUntil(timeout: 20) {
            self.mygpo.log.contains { $0.hasPrefix("POST /api/2/episodes/alice.json") } || self.mygpo.actions.count >= 3
        }
        XCTAssertTrue(stored, "\(mygpo.log)")
        syncing.send(SIGKILL)
        _ = await syncing.finish(timeout: 10)
        XCTAssertEqual(mygpo.actions.filter { ($0["action"] as? String) == "play" }.count, 3, "the server stored the batch")
        let waiting = try await status()
        XCTAssertEqual(waiting["pending"] as? Int, 3, "podq never read the receipt: the batch still waits")
        mygpo.setFault(nil)
        let again = try await podq(["sync"])
        XCTAssertEqual(again.code, 0, again.out + again.err)
        XCTAssertTrue(again.out.contains("sent 3 episode actions"), again.out)
        let after = try await status()
        XCTAssertEqual(after["pending"] as? Int, 0)
        XCTAssertEqual(mygpo.actions.filter { ($0["action"] as? String) == "play" }.count, 6, "twice on the server, never lost")
    }

    /// `podq download --json` writes one JSON object a line, whatever runs with it: the sync first and the
    /// cleanup after are `note` objects, not plain lines.
    func testADownloadWithJSONWritesOnlyJSON() async throws {
        let feed = serveFeed("Kept", base: 9700, items: 3, as: "kept.xml")
        _ = try await podq(["add", feed])
        try await login()
        let ids = try await episodes().compactMap { $0["id"] as? Int }.map { "e\($0)" }
        _ = try await podq(["queue", "add"] + ids)
        let fetched = try await podq(["download"])
        XCTAssertEqual(fetched.code, 0, fetched.out + fetched.err)
        _ = try await podq(["mark-played"] + ids)
        try "keep-episodes = 1\n".write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        let (exit, out, err) = try await cli.run(["download", "--json", server.url("/data/extra.mp3?size=500").absoluteString])
        XCTAssertEqual(exit.code, 0, out + err)
        let lines = out.split(separator: "\n")
        for line in lines {
            XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
        let notes = lines.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }.filter { $0["event"] as? String == "note" }
        XCTAssertTrue(notes.contains { ($0["text"] as? String)?.hasPrefix("sync: ") == true }, out)
        XCTAssertTrue(notes.contains { ($0["text"] as? String)?.hasPrefix("cleanup: ") == true }, out)
    }
}
