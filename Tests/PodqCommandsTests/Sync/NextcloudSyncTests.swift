import Foundation
import PodqTestAssertions
import PodqTestSupport
import XCTest

/// `podq sync` against Nextcloud's GPodder Sync app (``NextcloudTestServer``, written from the app's API
/// documentation with its rules): the flavour found out, subscriptions and plays both ways, Login Flow v2
/// with the app password kept in the keyring only.
final class NextcloudSyncTests: CLITestCase {
    private var nextcloud: NextcloudTestServer!
    private let password = "app-\(UUID().uuidString.prefix(8))-pw"

    override func setUp() async throws {
        try await super.setUp()
        nextcloud = try await NextcloudTestServer.start(users: ["bob": password])
    }

    override func tearDown() async throws {
        await nextcloud?.stop()
        try await super.tearDown()
    }

    private var printed: [String] = []

    private func podq(_ args: [String], environment: [String: String] = [:]) async throws -> (code: Int32?, out: String, err: String) {
        let (exit, out, err) = try await cli.run(args, environment: environment)
        printed += [out, err]
        return (exit.code, out, err)
    }

    private func feed(_ title: String, guid: String, items: Int = 2) -> [UInt8] {
        let entries = (1...items).map { i in
            "<item><title>\(title) \(i)</title><guid>\(guid)-\(i)</guid><pubDate>\(i) Nov 2026 10:00:00 GMT</pubDate><itunes:duration>1200</itunes:duration>"
                + "<enclosure url=\"\(server.url("/data/\(guid)\(i).mp3").absoluteString)?size=2000&amp;seed=\(i)\" type=\"audio/mpeg\" length=\"2000\"/></item>"
        }.joined()
        return Array(
            ("<?xml version=\"1.0\"?><rss version=\"2.0\" xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\">"
                + "<channel><title>\(title)</title>\(entries)</channel></rss>").utf8)
    }

    private func episodes() async throws -> [[String: Any]] {
        let (_, out, err) = try await podq(["episodes", "--json"])
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]], out + err)
    }

    func testSubscriptionsAndPlaysBothWaysWithNextcloud() async throws {
        server.serve(feed("Mine", guid: "m"), as: "mine.xml")
        server.serve(feed("Phone's", guid: "p"), as: "phones.xml")
        let mine = server.url("/static/mine.xml").absoluteString, phones = server.url("/static/phones.xml").absoluteString
        _ = try await podq(["add", mine])
        try password.write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        let login = try await podq(["sync", "login", nextcloud.base, "--user", "bob", "--password-command", "cat '\(dir.file("pw"))'"])
        XCTAssertEqual(login.code, 0, login.out + login.err)
        XCTAssertTrue(
            login.out.contains("(Nextcloud GPodder Sync): the gpodder.net API did not answer ("), "found out without --flavour, and why: \(login.out)")

        nextcloud.phone(user: "bob", subscribe: [phones])
        var result = try await podq(["sync"])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        XCTAssertTrue(result.out.contains("subscribed to Phone's"), result.out)
        XCTAssertEqual(nextcloud.subscriptions(of: "bob"), [mine, phones].sorted())

        // The phone heard 200 s of Mine 1 (by GUID) and all of Phone's 2 (by URL); podq marks Mine 2 played.
        let listed = try await episodes()
        func id(_ guid: String) -> Int? { listed.first { ($0["guid"] as? String) == guid }?["id"] as? Int }
        let phone2 = try XCTUnwrap(listed.first { ($0["guid"] as? String) == "p-2" }?["url"] as? String)
        let recent = Int64(Date().timeIntervalSince1970) - 600
        nextcloud.phonePlay(user: "bob", podcast: mine, episode: "https://elsewhere.example/m1.mp3", guid: "m-1", position: 200, total: 1200, at: recent)
        nextcloud.phonePlay(user: "bob", podcast: phones, episode: phone2, guid: nil, position: 1200, total: 1200, at: recent)
        _ = try await podq(["mark-played", String(try XCTUnwrap(id("m-2")))])
        result = try await podq(["sync"])
        XCTAssertEqual(result.code, 0, result.out + result.err)
        XCTAssertTrue(result.out.contains("sent 1 episode action"), result.out)
        XCTAssertTrue(result.out.contains("2 positions") && result.out.contains("1 marked played"), result.out)
        let now = try await episodes()
        func field(_ guid: String, _ name: String) -> Any? { now.first { ($0["guid"] as? String) == guid }?[name] }
        XCTAssertEqual(field("m-1", "position") as? Int, 200)
        XCTAssertEqual(field("p-2", "played") as? Bool, true)
        XCTAssertEqual(nextcloud.refusedBatches, 0, "podq's actions are as the app parses them")
        let stored = nextcloud.actions(of: "bob").first { ($0["guid"] as? String) == "m-2" }
        XCTAssertEqual(stored?["position"] as? Int, 1200)
        XCTAssertEqual(stored?["total"] as? Int, 1200)

        // The phone unsubscribes: so does podq (Nextcloud has one list for every client).
        nextcloud.phone(user: "bob", unsubscribe: [phones])
        result = try await podq(["sync"])
        XCTAssertTrue(result.out.contains("unsubscribed from Phone's (files kept)"), result.out)
        try assertNothingHolds(password, printed: printed)
    }

    /// Login Flow v2: podq prints the page to open, waits, and keeps the app password in the keyring
    /// (here a stand-in `secret-tool` on PATH that keeps it in a file of the test's): never in podq's home.
    func testLoginFlowKeepsTheAppPasswordInTheKeyringOnly() async throws {
        let bin = dir.file("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let keyring = dir.file("keyring")
        try """
        #!/bin/sh
        case "$1" in
          store) cat > '\(keyring)' ;;
          lookup) [ -f '\(keyring)' ] && cat '\(keyring)' ;;
          clear) rm -f '\(keyring)' ;;
        esac
        """.write(toFile: bin + "/secret-tool", atomically: true, encoding: .utf8)
        chmod(bin + "/secret-tool", 0o755)
        let environment = [
            "PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"), "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent",
        ]
        let child = try ChildProcess(
            executable: ChildProcess.podqExecutable, arguments: ["sync", "login", nextcloud.base],
            environment: ["PODQ_HOME": cli.home].merging(environment) { $1 },
            directory: dir.path)
        var page: String?
        await expect(timeout: 20) {
            page = child.standardOutput.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.contains("/login/v2/flow/") }
            return page != nil
        }
        let loginPage = try XCTUnwrap(page, child.standardOutput + child.standardError)
        nextcloud.grant(loginURL: loginPage, user: "bob", appPassword: password)
        let exit = child.wait(timeout: 30)
        printed += [child.standardOutput, child.standardError]
        XCTAssertEqual(exit.code, 0, child.standardOutput + child.standardError)
        XCTAssertTrue(child.standardOutput.contains("logged in to \(nextcloud.base) as bob (Nextcloud GPodder Sync)"), child.standardOutput)
        XCTAssertEqual(try String(contentsOfFile: keyring, encoding: .utf8), password, "the app password went to the keyring")
        let synced = try await podq(["sync"], environment: environment)
        XCTAssertEqual(synced.code, 0, synced.out + synced.err)
        try assertNothingHolds(password, printed: printed)
        let out = try await podq(["sync", "logout"], environment: environment)
        XCTAssertTrue(out.out.contains("logged out of \(nextcloud.base)"), out.out)
        XCTAssertFalse(FileManager.default.fileExists(atPath: keyring), "logout clears the keyring's entry")
    }

    /// Without a keyring, a browser login is refused before it starts, saying what to do instead.
    func testLoginFlowWithoutAKeyringSaysWhatToDo() async throws {
        let result = try await podq(["sync", "login", nextcloud.base], environment: ["DBUS_SESSION_BUS_ADDRESS": ""])
        XCTAssertEqual(result.code, 2)
        XCTAssertTrue(result.err.contains("--password-command"), result.err)
    }
}

/// The TUI syncs when it starts and on `y`, in the background; `podq refresh` syncs first (`sync = auto`),
/// and not with `sync = off`.
final class SyncFrontEndTests: CLITestCase {
    private var nextcloud: NextcloudTestServer!

    override func setUp() async throws {
        try await super.setUp()
        nextcloud = try await NextcloudTestServer.start(users: ["bob": "pw-frontend"])
    }

    override func tearDown() async throws {
        await nextcloud?.stop()
        try await super.tearDown()
    }

    private func feed(_ title: String) -> [UInt8] {
        Array(
            ("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>\(title)</title><item><title>\(title) 1</title><guid>\(title)-1</guid>"
                + "<enclosure url=\"\(server.url("/data/x.mp3").absoluteString)?size=2000\" type=\"audio/mpeg\" length=\"2000\"/></item></channel></rss>").utf8)
    }

    private func login() async throws {
        try "pw-frontend".write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        let (exit, out, err) = try await cli.run(["sync", "login", nextcloud.base, "--user", "bob", "--password-command", "cat '\(dir.file("pw"))'"])
        XCTAssertEqual(exit.code, 0, out + err)
    }

    func testRefreshSyncsFirstUnlessSyncIsOff() async throws {
        try await login()
        server.serve(feed("Later"), as: "later.xml")
        nextcloud.phone(user: "bob", subscribe: [server.url("/static/later.xml").absoluteString])
        try "sync = off\n".write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        var (exit, out, err) = try await cli.run(["refresh"])
        XCTAssertEqual(exit.code, 0, out + err)
        XCTAssertFalse(out.contains("sync:"), out)
        try "sync = auto\n".write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        (exit, out, err) = try await cli.run(["refresh"])
        XCTAssertEqual(exit.code, 0, out + err)
        XCTAssertTrue(out.hasPrefix("sync: sent nothing; received subscribed to Later"), out)
        // A server that is down: said, and the refresh goes on with its own exit code.
        await nextcloud.stop()
        (exit, out, err) = try await cli.run(["refresh"])
        XCTAssertEqual(exit.code, 0, out + err)
        XCTAssertTrue(err.contains("sync first: cannot reach the sync server"), err)
    }
}
