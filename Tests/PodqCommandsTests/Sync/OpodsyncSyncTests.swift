import Foundation
import PodqTestSupport
import XCTest

/// `podq sync` through the real binary against opodsync, a real third-party server (PHP and SQLite)
/// that speaks both APIs on one store: one podq home logs in without `--flavour` (the gpodder.net API,
/// found out), another with `--flavour nextcloud`; a third device posts what opodsync stores as it is
/// sent (a `flattr`, a numeric GUID). Subscriptions, positions and played marks meet in both homes.
final class OpodsyncSyncTests: CLITestCase {
    private var opodsync: OpodsyncTestServer!
    private let password = "pw-\(UUID().uuidString.prefix(8))-secret"
    private var printed: [String] = []

    override func setUp() async throws {
        try await super.setUp()
        opodsync = try await OpodsyncTestServer.start(in: dir.file("opodsync"), user: "podq", password: password)
    }

    override func tearDown() async throws {
        opodsync?.stop()
        try await super.tearDown()
    }

    private func podq(_ home: PodqInvocation, _ args: [String]) async throws -> (code: Int32?, out: String, err: String) {
        let (exit, out, err) = try await home.run(args)
        printed += [out, err]
        return (exit.code, out, err)
    }

    private func episodes(_ home: PodqInvocation) async throws -> [[String: Any]] {
        let (_, out, err) = try await podq(home, ["episodes", "--json"])
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]], out + err)
    }

    private func feed(_ title: String, base: Int, items: Int) -> [UInt8] {
        let entries = (1...items).map { i in
            "<item><title>\(title) \(i)</title><guid isPermaLink=\"false\">\(base + i)</guid><pubDate>\(i) Nov 2026 10:00:00 GMT</pubDate>"
                + "<itunes:duration>1800</itunes:duration><enclosure url=\"\(server.url("/data/o\(i).mp3").absoluteString)?size=3000&amp;seed=\(i)\" "
                + "type=\"audio/mpeg\" length=\"3000\"/></item>"
        }.joined()
        return Array(
            ("<?xml version=\"1.0\"?><rss version=\"2.0\" xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\">"
                + "<channel><title>\(title)</title>\(entries)</channel></rss>").utf8)
    }

    /// Another device posts `actions` (JSON) to opodsync's gpodder.net API, as it sends them.
    private func otherDevice(_ actions: String) throws {
        let body = dir.file("actions.json")
        try actions.write(toFile: body, atomically: true, encoding: .utf8)
        let curl = try ChildProcess(
            executable: "curl",
            arguments: [
                "-s", "-f", "-u", "podq:\(password)", "-H", "Content-Type: application/json", "--data-binary", "@\(body)",
                opodsync.url.absoluteString + "/api/2/episodes/podq.json",
            ], directory: dir.path)
        let exit = curl.wait(timeout: 30)
        XCTAssertEqual(exit.code, 0, curl.standardError + curl.standardOutput)
    }

    func testBothFlavoursMeetOnOneOpodsync() async throws {
        server.serve(feed("Ours", base: 7000, items: 3), as: "ours.xml")
        let ours = server.url("/static/ours.xml").absoluteString
        try password.write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        let login = ["--user", "podq", "--password-command", "cat '\(dir.file("pw"))'"]
        let a = cli!
        let b = PodqInvocation(home: dir.file("home-b"), directory: dir.path)

        // A: without --flavour, podq finds the gpodder.net API; its first sync completes on
        // opodsync's all-devices list (objects with `feed`).
        _ = try await podq(a, ["add", ours])
        var result = try await podq(a, ["sync", "login", opodsync.url.absoluteString] + login + ["--device", "podq-a"])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        XCTAssertTrue(result.out.contains("gpodder.net API, this device is podq-a): its login and lists answer; it also speaks Nextcloud's"), result.out)
        result = try await podq(a, ["sync"])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        XCTAssertTrue(result.out.contains("sent 1 subscription change"), result.out)
        result = try await podq(a, ["sync", "--full"])
        XCTAssertEqual(result.code, 0, "every later sync completes too: " + result.out + result.err)

        // B: the Nextcloud API on the same store adopts A's subscription.
        result = try await podq(b, ["sync", "login", opodsync.url.absoluteString] + login + ["--flavour", "nextcloud"])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        result = try await podq(b, ["sync"])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        XCTAssertTrue(result.out.contains("subscribed to Ours"), result.out)

        // B hears the first episode to the end: A gets it played.
        let inB = try await episodes(b)
        let first = try XCTUnwrap(inB.first { ($0["guid"] as? String) == "7001" }?["id"] as? Int)
        _ = try await podq(b, ["mark-played", "e\(first)"])
        result = try await podq(b, ["sync"])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        XCTAssertTrue(result.out.contains("sent 1 episode action"), result.out)
        result = try await podq(a, ["sync"])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        XCTAssertTrue(result.out.contains("1 marked played"), result.out)

        // A phone sends a flattr and a play with a numeric GUID: both homes read the rest of the answer.
        // Its actions are an hour old: opodsync files an action under its own time, and a pull asks from
        // three days before the last one (`SyncRun.overlap`), so a fixed date stops being seen three days on.
        let anHourAgo = SyncCommandTests.wire(hoursAgo: 1)
        try otherDevice(
            """
            [{"podcast": "\(ours)", "episode": "http://elsewhere.invalid/2.mp3", "action": "flattr", "timestamp": "\(anHourAgo)", "device": "phone"},
             {"podcast": "\(ours)", "episode": "http://elsewhere.invalid/2.mp3", "guid": 7002, "action": "play", "timestamp": "\(anHourAgo)",
              "started": 0, "position": 420, "total": 1800, "device": "phone"}]
            """)
        for home in [a, b] {
            result = try await podq(home, ["sync"])
            XCTAssertEqual(result.code, 0, result.out + result.err)
            XCTAssertTrue(result.out.contains("1 position"), result.out)
            let second = try await episodes(home).first { ($0["guid"] as? String) == "7002" }
            XCTAssertEqual(second?["position"] as? Int, 420)
        }
        let aSaid = try await podq(a, ["sync"])
        XCTAssertTrue(aSaid.out.contains("received nothing new"), aSaid.out)

        // One truth on both APIs: A marks the third played; the phone, not knowing, listens 4 s a minute
        // later; after two syncs each, A (gpodder.net API) and B (Nextcloud's) say "not played, at 4 s".
        let inA = try await episodes(a)
        let third = try XCTUnwrap(inA.first { ($0["guid"] as? String) == "7003" }?["id"] as? Int)
        _ = try await podq(a, ["mark-played", "e\(third)"])
        let told = try await podq(a, ["sync"])
        XCTAssertEqual(told.code, 0, told.out + told.err)
        try otherDevice(
            """
            [{"podcast": "\(ours)", "episode": "http://elsewhere.invalid/3.mp3", "guid": "7003", "action": "play",
              "timestamp": "\(SyncCommandTests.wire(hoursAgo: -1.0 / 60))", "started": 0, "position": 4, "total": 1800, "device": "phone"}]
            """)
        for home in [a, b, a, b] {
            let synced = try await podq(home, ["sync"])
            XCTAssertEqual(synced.code, 0, synced.out + synced.err)
        }
        for home in [a, b] {
            let heard = try await episodes(home).first { ($0["guid"] as? String) == "7003" }
            XCTAssertEqual(heard?["played"] as? Bool, false, "\(home.home): \(String(describing: heard))")
            XCTAssertEqual(heard?["position"] as? Int, 4, "\(home.home)")
        }

        // opodsync keeps no sync groups (every device shares one list): `link` says so, never "linked".
        try otherDevice("[]")
        let register = try ChildProcess(
            executable: "curl",
            arguments: [
                "-s", "-f", "-u", "podq:\(password)", "-H", "Content-Type: application/json", "--data", #"{"caption": "phone", "type": "mobile"}"#,
                opodsync.url.absoluteString + "/api/2/devices/podq/phone.json",
            ], directory: dir.path)
        XCTAssertEqual(register.wait(timeout: 30).code, 0, register.standardError)
        let linked = try await podq(a, ["sync", "link", "phone"])
        XCTAssertEqual(linked.code, 1, linked.out + linked.err)
        XCTAssertTrue(linked.err.contains("did not answer with its sync groups") && linked.err.contains("Nothing was linked"), linked.err)
        XCTAssertFalse(linked.out.contains("linked"), linked.out)
        try assertNothingHolds(password, printed: printed)
    }
}
