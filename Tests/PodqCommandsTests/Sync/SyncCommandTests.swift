import Foundation
import PodqTestSupport
import XCTest

/// `podq sync` through the real binary against a real gpodder.net-compatible server no one on the team
/// wrote (gpodder-fastapi-router), with gpodder.net's reference client (mygpoclient) as the phone.
final class SyncCommandTests: CLITestCase {
    private var gpodder: GPodderTestServer!
    /// A password no output, log or file of podq's may ever hold.
    private let password = "pw-\(UUID().uuidString.prefix(8))-secret"
    private let user = "alice"

    override func setUp() async throws {
        try await super.setUp()
        gpodder = try await GPodderTestServer.start(in: dir.file("gpodder"), users: [(user, password)])
    }

    override func tearDown() async throws {
        gpodder?.stop()
        try await super.tearDown()
    }

    /// Everything podq printed in this test, for the password check.
    private var printed: [String] = []

    private func podq(_ args: [String]) async throws -> (code: Int32?, out: String, err: String) {
        let (exit, out, err) = try await cli.run(args)
        printed += [out, err]
        return (exit.code, out, err)
    }

    private func feed(_ title: String, guid: String, items: Int = 2) -> [UInt8] {
        let entries = (1...items).map { i in
            "<item><title>\(title) \(i)</title><guid>\(guid)-\(i)</guid><pubDate>\(i) Nov 2026 10:00:00 GMT</pubDate><itunes:duration>1800</itunes:duration>"
                + "<enclosure url=\"\(server.url("/data/\(guid)\(i).mp3").absoluteString)?size=3000&amp;seed=\(i)\" type=\"audio/mpeg\" length=\"3000\"/></item>"
        }.joined()
        return Array(
            ("<?xml version=\"1.0\"?><rss version=\"2.0\" xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\">"
                + "<channel><title>\(title)</title>\(entries)</channel></rss>").utf8)
    }

    /// Logs in with a password command that reads the password from a file (the command is stored; it must not hold the password).
    /// A time `hoursAgo` hours ago as the wire writes it (UTC).
    static func wire(hoursAgo: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        return formatter.string(from: Date().addingTimeInterval(-hoursAgo * 3600))
    }

    private func login() async throws {
        try password.write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        let result = try await podq(["sync", "login", gpodder.url.absoluteString, "--user", user, "--password-command", "cat '\(dir.file("pw"))'"])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        XCTAssertTrue(result.out.contains("logged in to \(gpodder.url.absoluteString) as alice (gpodder.net API"), result.out)
    }

    private func phone(_ command: [String]) async throws -> String {
        try await gpodder.phone(user: user, password: password, device: "phone", command)
    }

    private func episodes() async throws -> [[String: Any]] {
        let (_, out, err) = try await podq(["episodes", "--json"])
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]], out + err)
    }

    private func status() async throws -> [String: Any] {
        let (_, out, _) = try await podq(["sync", "status", "--json"])
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any], out)
    }

    func testSubscriptionsGoBothWaysAndTheServersRemoveUnsubscribes() async throws {
        server.serve(feed("Ours", guid: "o"), as: "ours.xml")
        server.serve(feed("Theirs", guid: "t"), as: "theirs.xml")
        let ours = server.url("/static/ours.xml").absoluteString, theirs = server.url("/static/theirs.xml").absoluteString
        _ = try await podq(["add", ours])
        try await login()
        _ = try await phone(["subscribe", theirs])
        // The first sync adopts every device's subscriptions.
        var result = try await podq(["sync"])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        XCTAssertTrue(result.out.contains("sent 1 subscription change"), result.out)
        XCTAssertTrue(result.out.contains("subscribed to Theirs"), result.out)
        let feeds = try await podq(["feeds"])
        XCTAssertTrue(feeds.out.contains("Ours") && feeds.out.contains("Theirs"), feeds.out)
        let deviceField = try await status()["device"]
        let device = try XCTUnwrap(deviceField as? String)
        let onServer = try await gpodder.phone(user: user, password: password, device: device, ["subscriptions"])
        XCTAssertTrue(onServer.contains(ours), "podq's subscription reached the server: \(onServer)")

        // Linked with the phone (one sync group), podq follows its changes: it unsubscribes, and says so; the files stay.
        let linked = try await podq(["sync", "link", "phone"])
        XCTAssertEqual(linked.code, 0, linked.out + linked.err)
        _ = try await phone(["unsubscribe", theirs])
        result = try await podq(["sync"])
        XCTAssertTrue(result.out.contains("unsubscribed from Theirs (files kept)"), result.out)
        let feedsAfter = try await podq(["feeds"]).out
        XCTAssertFalse(feedsAfter.contains("Theirs"))

        // podq unsubscribes: the server hears it.
        _ = try await podq(["remove", "Ours"])
        let pendingAfterRemove = try await status()["pending"]
        XCTAssertEqual(pendingAfterRemove as? Int, 1)
        result = try await podq(["sync"])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        let pendingAfterSync = try await status()["pending"]
        XCTAssertEqual(pendingAfterSync as? Int, 0)
        let after = try await gpodder.phone(user: user, password: password, device: device, ["subscriptions"])
        XCTAssertFalse(after.contains(ours), after)
        try assertNothingHolds(password, printed: printed)
    }

    /// The phone's position and played mark arrive (matched by GUID, and by the URL inside a tracking
    /// prefix when there is no GUID); podq's mark arrives on the phone as AntennaPod reads it; a pull
    /// again (--full) changes nothing.
    func testPlaysGoBothWays() async throws {
        server.serve(feed("Show", guid: "s", items: 3), as: "show.xml")
        let feedURL = server.url("/static/show.xml").absoluteString
        _ = try await podq(["add", feedURL])
        try await login()
        _ = try await podq(["sync"])
        let listed = try await episodes()
        func episode(_ guid: String) -> [String: Any]? { listed.first { ($0["guid"] as? String) == guid } }
        let first = try XCTUnwrap(episode("s-1")), second = try XCTUnwrap(episode("s-2"))
        XCTAssertTrue(first["position"] is NSNull, "never played: null")
        let secondURL = try XCTUnwrap(second["url"] as? String)
        // The phone heard 300 s of the first (by GUID), and the whole second, seen through podtrac with no GUID.
        _ = try await phone(["play", feedURL, "http://example.invalid/one.mp3", "300", "1800", "s-1", Self.wire(hoursAgo: 2)])
        let tracked = "https://dts.podtrac.com/redirect.mp3/" + secondURL.replacingOccurrences(of: "http://", with: "")
        _ = try await phone(["play", feedURL, tracked, "1800", "1800", "", Self.wire(hoursAgo: 1)])
        var result = try await podq(["sync"])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        XCTAssertTrue(result.out.contains("2 positions") && result.out.contains("1 marked played"), result.out)
        var now = try await episodes()
        func field(_ guid: String, _ name: String) -> Any? { now.first { ($0["guid"] as? String) == guid }?[name] }
        XCTAssertEqual(field("s-1", "position") as? Int, 300)
        XCTAssertEqual(field("s-1", "played") as? Bool, false)
        XCTAssertEqual(field("s-2", "position") as? Int, 1800)
        XCTAssertEqual(field("s-2", "played") as? Bool, true)

        // Asked again from the start: nothing changes.
        result = try await podq(["sync", "--full"])
        XCTAssertTrue(result.out.contains("received nothing new"), result.out)

        // A play uploaded late with its own old time (ten days ago) falls before the overlap window:
        // a sync misses it, `--full` finds it.
        _ = try await phone(["play", feedURL, "http://example.invalid/three.mp3", "600", "1800", "s-3", Self.wire(hoursAgo: 240)])
        result = try await podq(["sync"])
        XCTAssertTrue(result.out.contains("received nothing new"), result.out)
        result = try await podq(["sync", "--full"])
        XCTAssertTrue(result.out.contains("received 1 position"), result.out)

        // podq marks the third played: the phone gets a play to the end, lower case, with a text timestamp.
        let third = try XCTUnwrap(now.first { ($0["guid"] as? String) == "s-3" }?["id"] as? Int)
        XCTAssertEqual(field("s-3", "position") as? Int, nil, "read before the late play")
        _ = try await podq(["mark-played", String(third)])
        let pendingAfterMark = try await status()["pending"]
        XCTAssertEqual(pendingAfterMark as? Int, 1)
        result = try await podq(["sync"])
        XCTAssertTrue(result.out.contains("sent 1 episode action"), result.out)
        let phoneActions = try await phone(["actions"])
        let actions = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(phoneActions.utf8)) as? [[String: Any]])
        let ownDevice = try await status()["device"]
        let device = try XCTUnwrap(ownDevice as? String)
        let sent = try XCTUnwrap(actions.first { ($0["device"] as? String) == device })
        XCTAssertEqual(sent["action"] as? String, "play")
        XCTAssertEqual(sent["started"] as? Int, 1800)
        XCTAssertEqual(sent["position"] as? Int, 1800)
        XCTAssertEqual(sent["total"] as? Int, 1800)
        let stamp = try XCTUnwrap(sent["timestamp"] as? String)
        XCTAssertNotNil(stamp.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$"#, options: .regularExpression), stamp)
        now = try await episodes()
        XCTAssertEqual(field("s-3", "played") as? Bool, true)
        try assertNothingHolds(password, printed: printed)
    }

    /// Changes made while the server is down wait in the store (exit 1, nothing lost) and go once it is back.
    func testOfflineChangesAreSentWhenTheServerIsBack() async throws {
        server.serve(feed("Show", guid: "s", items: 3), as: "show.xml")
        _ = try await podq(["add", server.url("/static/show.xml").absoluteString])
        try await login()
        _ = try await podq(["sync"])
        gpodder.stop()
        let ids = try await episodes().compactMap { $0["id"] as? Int }.map(String.init)
        _ = try await podq(["mark-played"] + ids)
        var result = try await podq(["sync"])
        XCTAssertEqual(result.code, 1, result.out + result.err)
        XCTAssertTrue(result.err.contains("cannot reach the sync server") && result.err.contains("Nothing was lost"), result.err)
        var now = try await status()
        XCTAssertEqual(now["pending"] as? Int, 3)
        XCTAssertTrue((now["lastError"] as? String)?.contains("cannot reach") == true, "\(now)")
        gpodder = try await gpodder.restarted()
        result = try await podq(["sync"])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        XCTAssertTrue(result.out.contains("sent 3 episode actions"), result.out)
        now = try await status()
        XCTAssertEqual(now["pending"] as? Int, 0)
        XCTAssertTrue(now["lastError"] is NSNull, "\(now)")
        let actions = try await phone(["actions"])
        XCTAssertEqual(actions.components(separatedBy: "\"action\": \"play\"").count - 1, 3, actions)
        try assertNothingHolds(password, printed: printed)
    }

    /// A wrong password is said as such, with what to do, and nothing is stored.
    func testAWrongPasswordIsRefusedAndNothingIsKept() async throws {
        let result = try await podq(["sync", "login", gpodder.url.absoluteString, "--user", user, "--password-command", "printf %s wrong"])
        XCTAssertEqual(result.code, 1)
        XCTAssertTrue(result.err.contains("refused the password of 'alice'"), result.err)
        let loggedIn = try await status()["loggedIn"]
        XCTAssertEqual(loggedIn as? Bool, false)
        let sync = try await podq(["sync"])
        XCTAssertEqual(sync.code, 2)
        XCTAssertTrue(sync.err.contains("not logged in"), sync.err)
    }

    /// On a gpodder.net account, a completed download and a file podq deleted are told as `download` and
    /// `delete` actions (a received delete deletes nothing: SyncStoreTests).
    func testDownloadsAndDeletionsAreToldToAGPodderServer() async throws {
        server.serve(feed("Show", guid: "d", items: 1), as: "show.xml")
        _ = try await podq(["add", server.url("/static/show.xml").absoluteString])
        try await login()
        _ = try await podq(["sync"])
        let listed = try await episodes()
        let id = try XCTUnwrap(listed.first?["id"] as? Int)
        _ = try await podq(["queue", "add", String(id)])
        var result = try await podq(["download"])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        result = try await podq(["queue", "remove", "--delete-file", "1"])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        result = try await podq(["sync"])
        XCTAssertTrue(result.out.contains("sent 2 episode actions"), result.out)
        let deviceField = try await status()["device"]
        let device = try XCTUnwrap(deviceField as? String)
        let phoneActions = try await phone(["actions"])
        let actions = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(phoneActions.utf8)) as? [[String: Any]])
        let ours = actions.filter { ($0["device"] as? String) == device }.compactMap { $0["action"] as? String }
        XCTAssertEqual(ours, ["download", "delete"])
    }

    /// A second podq linking with the phone keeps the first in the group (the server replaces groups:
    /// podq sends every device already linked), says so, and a removal reaches the other devices.
    func testLinkingKeepsEveryDeviceInTheGroupAndRemovalsConverge() async throws {
        server.serve(feed("Shared", guid: "g"), as: "shared.xml")
        server.serve(feed("Mine", guid: "m"), as: "mine.xml")
        _ = try await phone(["subscribe", server.url("/static/shared.xml").absoluteString])
        _ = try await podq(["add", server.url("/static/mine.xml").absoluteString])
        try password.write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        let b = PodqInvocation(home: dir.file("home-b"), directory: dir.path)
        for (home, id) in [(cli!, "podq-a"), (b, "podq-b")] {
            let (exit, out, err) = try await home.run(
                ["sync", "login", gpodder.url.absoluteString, "--user", user, "--password-command", "cat '\(dir.file("pw"))'", "--device", id])
            printed += [out, err]
            XCTAssertEqual(exit.code, 0, out + err)
            let first = try await home.run(["sync"])
            XCTAssertEqual(first.exit.code, 0, first.out + first.err)
        }
        var linked = try await podq(["sync", "link", "phone"])
        XCTAssertEqual(linked.code, 0, linked.out + linked.err)
        XCTAssertTrue(linked.out.contains("linked podq-a with phone: the server keeps"), linked.out)
        let second = try await b.run(["sync", "link", "phone"])
        XCTAssertEqual(second.exit.code, 0, second.out + second.err)
        XCTAssertTrue(second.out.contains("linked podq-b with phone (and podq-a, linked before)"), second.out)
        // podq-a again: already in the group, it stays one group of three.
        linked = try await podq(["sync", "link", "podq-b"])
        XCTAssertTrue(linked.out.contains("linked podq-a with podq-b (and phone, linked before)"), linked.out)

        // A removes its podcast: B, after A's sync and its own, has removed it too.
        _ = try await podq(["remove", "Mine"])
        let told = try await podq(["sync"])
        XCTAssertEqual(told.code, 0, told.out + told.err)
        let result = try await b.run(["sync"])
        XCTAssertEqual(result.exit.code, 0, result.out + result.err)
        XCTAssertTrue(result.out.contains("unsubscribed from Mine (files kept)"), result.out)
        try assertNothingHolds(password, printed: printed)
    }

    /// One truth on every device: podq A marks an episode played; the phone, not knowing, listens 4 s
    /// after; podq A and podq C, after syncing twice, both say "not played, at 4 s" as the phone does.
    /// A phone whose clock says 9999 does not outrank what happens after.
    func testTwoPodqHomesAndAPhoneAgreeOnPlayedAndPosition() async throws {
        server.serve(feed("Show", guid: "t", items: 2), as: "show.xml")
        let feedURL = server.url("/static/show.xml").absoluteString
        _ = try await podq(["add", feedURL])
        try password.write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        let c = PodqInvocation(home: dir.file("home-c"), directory: dir.path)
        for (home, id) in [(cli!, "podq-a"), (c, "podq-c")] {
            let login = try await home.run(
                ["sync", "login", gpodder.url.absoluteString, "--user", user, "--password-command", "cat '\(dir.file("pw"))'", "--device", id])
            XCTAssertEqual(login.exit.code, 0, login.out + login.err)
            let first = try await home.run(["sync"])
            XCTAssertEqual(first.exit.code, 0, first.out + first.err)
        }
        let listed = try await episodes()
        let first = try XCTUnwrap(listed.first { ($0["guid"] as? String) == "t-1" }?["id"] as? Int)
        _ = try await podq(["mark-played", "e\(first)"])
        let told = try await podq(["sync"])
        XCTAssertEqual(told.code, 0, told.out + told.err)
        // The phone listens 4 s a minute later (its own time).
        _ = try await phone(["play", feedURL, "http://example.invalid/t1.mp3", "4", "1800", "t-1", Self.wire(hoursAgo: -1.0 / 60)])
        // And a phone with a wrong clock heard the second episode to 100 s "in 9999".
        _ = try await phone(["play", feedURL, "http://example.invalid/t2.mp3", "100", "1800", "t-2", "9999-01-01T00:00:00"])
        for home in [cli!, c, cli!, c] {
            let synced = try await home.run(["sync"])
            XCTAssertEqual(synced.exit.code, 0, synced.out + synced.err)
        }
        for home in [cli!, c] {
            let (_, out, _) = try await home.run(["episodes", "--json"])
            let now = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]])
            let one = try XCTUnwrap(now.first { ($0["guid"] as? String) == "t-1" })
            XCTAssertEqual(one["played"] as? Bool, false, "\(home.home): \(one)")
            XCTAssertEqual(one["position"] as? Int, 4, "\(home.home): \(one)")
            let two = try XCTUnwrap(now.first { ($0["guid"] as? String) == "t-2" })
            XCTAssertEqual(two["position"] as? Int, 100)
        }
        // Here, the second is marked played after: the phone's 9999 play does not undo it on the next syncs.
        let second = try XCTUnwrap(listed.first { ($0["guid"] as? String) == "t-2" }?["id"] as? Int)
        _ = try await podq(["mark-played", "e\(second)"])
        for _ in 0..<2 {
            let again = try await podq(["sync", "--full"])
            XCTAssertEqual(again.code, 0, again.out + again.err)
        }
        let after = try await episodes()
        XCTAssertEqual(after.first { ($0["guid"] as? String) == "t-2" }?["played"] as? Bool, true, "\(after)")
        try assertNothingHolds(password, printed: printed)
    }
}
