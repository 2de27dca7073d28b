import Foundation
import PodqCore
import PodqSession
import PodqTestSupport
import XCTest

/// Private and paid feeds through the real binary: a login in the URL, `--user` with the password
/// asked for, a password command; the login goes to the feed's host only, and no output, log,
/// JSON or OPML export ever holds it.
final class PrivateFeedCommandTests: CLITestCase {
    private let secret = "s3cr3t-Pa55"
    private var other: TestServer!

    override func setUp() async throws {
        try await super.setUp()
        other = try await TestServer.start(host: "127.0.0.2")
    }

    override func tearDown() async throws {
        await other.stop()
        try await super.tearDown()
    }

    /// A private feed: two episodes on its own host (behind the login), one redirected to another host,
    /// and a token URL with `&amp;`.
    private func servePrivateFeed() {
        server.requireLogin(user: "me", password: secret)
        let base = "/private"
        let away = other.dataURL(size: 1500, seed: 7, name: "away.mp3").absoluteString
        let items = """
            <item><title>One</title><guid>1</guid><enclosure url="\(base)/data/one.mp3?size=2000&amp;seed=5" type="audio/mpeg"/></item>
            <item><title>Away</title><guid>2</guid><enclosure url="\(base)/redirect/1?to=\(away.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" type="audio/mpeg"/></item>
            <item><title>Token</title><guid>3</guid><enclosure url="/data/token.mp3?auth=abc123&amp;size=1000&amp;seed=6" type="audio/mpeg"/></item>
            """
        server.serve(
            Array(
                """
                <?xml version="1.0"?><rss version="2.0"><channel><title>Members</title>\(items)</channel></rss>
                """.utf8), as: "members.xml")
    }

    private var feedPath: String { "/private/static/members.xml" }

    private func assertNoSecretAnywhere(file: StaticString = #filePath, line: UInt = #line) async throws {
        var outputs: [String] = []
        for args in [["feeds"], ["feeds", "--json"], ["episodes", "--json"], ["queue", "list"], ["queue", "list", "--json"], ["export"]] {
            let (_, out, err) = try await cli.run(args)
            outputs.append(out + err)
        }
        outputs.append((try? String(contentsOfFile: cli.home + "/podq.log", encoding: .utf8)) ?? "")
        for text in outputs {
            XCTAssertFalse(text.contains(secret), "the password leaked: \(text)", file: file, line: line)
        }
    }

    func testALoginInTheURLIsStoredApartSentToItsHostOnlyAndNeverShown() async throws {
        servePrivateFeed()
        var components = URLComponents(url: server.url(feedPath), resolvingAgainstBaseURL: false)!
        components.user = "me"
        components.password = secret
        let (added, out, err) = try await cli.run(["add", components.url!.absoluteString])
        XCTAssertEqual(added.code, 0, err)
        XCTAssertTrue(out.contains("3 episodes"), out)
        XCTAssertFalse((out + err).contains(secret))
        let (_, feeds, _) = try await cli.run(["feeds"])
        XCTAssertTrue(feeds.contains(server.url(feedPath).absoluteString), "the stored URL has no login: \(feeds)")

        // Download all three: the login goes with the feed's host, not to 127.0.0.2.
        let (queued, qout, qerr) = try await cli.run(["queue", "add", "--download-dir", dir.file("out"), "1", "2", "3"])
        XCTAssertEqual(queued.code, 0, qout + qerr)
        let (downloaded, dout, derr) = try await cli.run(["download"])
        XCTAssertEqual(downloaded.code, 0, dout + derr)
        let files = (FileManager.default.enumerator(atPath: dir.file("out"))?.allObjects as? [String]) ?? []
        XCTAssertEqual(FileHash.sha256(path: dir.file("out/Members/One.mp3")), PatternSource(seed: 5, length: 2000).sha256, "\(files)")
        XCTAssertFalse(other.log.requests.isEmpty, "the redirected episode reached the other host")
        for request in other.log.requests {
            XCTAssertNil(request.header("Authorization"), "no login to another host after a redirect")
        }
        XCTAssertTrue(server.log.requests.contains { $0.uri.contains("auth=abc123&size=1000") }, "the token URL's &amp; is decoded")
        try await assertNoSecretAnywhere()
        let mode = try FileManager.default.attributesOfItem(atPath: cli.home + "/queue.sqlite")[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600, "the database holds logins: the user's alone")
    }

    func testUserAsksForThePasswordAndRefreshUsesIt() async throws {
        servePrivateFeed()
        let password = dir.file("password.txt")
        try "\(secret)\n".write(toFile: password, atomically: true, encoding: .utf8)
        let (added, out, err) = try await cli.run(["add", "--user", "me", server.url(feedPath).absoluteString], stdinPath: password)
        XCTAssertEqual(added.code, 0, out + err)
        server.log.reset()
        let (refreshed, rout, rerr) = try await cli.run(["refresh"])
        XCTAssertEqual(refreshed.code, 0, rout + rerr)
        XCTAssertTrue(rout.contains("Members: 0 new") || rout.contains("not modified"), rout)
        XCTAssertNotNil(server.log.requests.first?.header("Authorization"))
        try await assertNoSecretAnywhere()

        // A wrong login says what to do.
        let (_, _, _) = try await cli.run(["login", "1", "--user", "me"], stdinPath: "/dev/null")
        try "wrong\n".write(toFile: password, atomically: true, encoding: .utf8)
        _ = try await cli.run(["login", "1", "--user", "me"], stdinPath: password)
        let (_, failedOut, failedErr) = try await cli.run(["refresh"])
        let failed = failedOut + failedErr
        XCTAssertTrue(failed.contains("HTTP 401") && failed.contains("podq login"), failed)
        XCTAssertTrue(failed.contains("refused the login for me"), failed)
        XCTAssertFalse(failed.contains("--user NAME` (or"), "no advice to add --user, which was used: \(failed)")
    }

    func testAPasswordCommandIsRunWhenNeededAndItsFailureIsSaid() async throws {
        servePrivateFeed()
        let (added, out, err) = try await cli.run([
            "add", "--user", "me", "--password-command", "printf '%s\\n' '\(secret)'",
            server.url(feedPath).absoluteString,
        ])
        XCTAssertEqual(added.code, 0, out + err)
        XCTAssertTrue(out.contains("3 episodes"), out)
        try await assertNoSecretAnywhere()

        // The config's command, with %u and %h, for a podcast with a user and nothing else.
        let (_, _, _) = try await cli.run(["login", "1", "--remove"])
        try "password-command = \"test %u = me && test %h = 127.0.0.1 && echo \(secret)\"\n".write(
            toFile: cli.home + "/config", atomically: true, encoding: .utf8)
        _ = try await cli.run(["login", "1", "--user", "me"])
        let (_, refreshed, refreshErr) = try await cli.run(["refresh"])
        XCTAssertFalse(refreshed.contains("HTTP 401"), refreshed + refreshErr)

        try "password-command = \"echo nope >&2; exit 3\"\n".write(toFile: cli.home + "/config", atomically: true, encoding: .utf8)
        let (_, brokenOut, brokenErr) = try await cli.run(["refresh"])
        let broken = brokenOut + brokenErr
        XCTAssertTrue(broken.contains("the password command") && broken.contains("nope"), broken)
        XCTAssertTrue(broken.contains("failed (exit code 3)"), "the status in words, not `exited(3)`: \(broken)")
    }

    /// A password command that never ends (a `pass` waiting for a passphrase in cron) is stopped at its
    /// deadline, with what it started: the refresh goes on and says why.
    func testAPasswordCommandThatHangsIsStoppedAtItsDeadline() async throws {
        servePrivateFeed()
        let pidFile = dir.file("sleeper.pid")
        let (added, out, err) = try await cli.run(
            ["add", "--user", "me", "--password-command", "sh -c 'echo $$ > \(pidFile); exec sleep 120'", server.url(feedPath).absoluteString],
            environment: ["PODQ_COMMAND_TIMEOUT": "1"], timeout: 30)
        XCTAssertEqual(added.code, 1, out + err)
        XCTAssertTrue(err.contains("did not finish within 1 s"), err)
        let pid = try XCTUnwrap(Int32(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        let gone = await waitUntil(timeout: 10) { kill(pid, 0) != 0 }
        XCTAssertTrue(gone, "the command's child was stopped too")
    }
}

/// A login goes only to the origin (scheme, host, port) it was given for, whatever the server or the
/// feed says later: a permanent redirect, a web page's feed link or `itunes:new-feed-url` to another
/// host never carries it there; `refresh` says why it failed and `podq login` gives it again.
final class LoginOriginCommandTests: CLITestCase {
    private let secret = "s3cr3t-Pa55"
    private var other: TestServer!
    private var passwordFile: String { dir.file("password.txt") }

    override func setUp() async throws {
        try await super.setUp()
        other = try await TestServer.start(host: "127.0.0.2")
        try "\(secret)\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
    }

    override func tearDown() async throws {
        await other.stop()
        try await super.tearDown()
    }

    private func feed(title: String, extra: String = "") -> [UInt8] {
        Array(
            """
            <?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>\(title)</title>\(extra)
            <item><title>One</title><guid>1</guid><enclosure url="/data/one.mp3?size=2000" type="audio/mpeg"/></item></channel></rss>
            """.utf8)
    }

    private func assertNoLoginReached(_ server: TestServer, file: StaticString = #filePath, line: UInt = #line) {
        for request in server.log.requests {
            XCTAssertNil(request.header("Authorization"), "a login reached \(server.url("/")) for \(request.uri)", file: file, line: line)
        }
    }

    func testAPermanentRedirectToAnotherHostKeepsTheLoginBehindUntilPodqLogin() async throws {
        server.requireLogin(user: "me", password: secret)
        server.serve(feed(title: "Members"), as: "members.xml")
        let path = "/private/static/members.xml"
        let (added, out, err) = try await cli.run(["add", "--user", "me", server.url(path).absoluteString], stdinPath: passwordFile)
        XCTAssertEqual(added.code, 0, out + err)
        // The feed moves for good to another host, public there: the subscription follows it, its login does not.
        other.serve(feed(title: "Members, moved"), as: "members.xml")
        server.move(path, to: other.url("/static/members.xml"))
        let (_, moved, _) = try await cli.run(["refresh"])
        XCTAssertTrue(moved.contains("the feed moved to \(other.url("/static/members.xml"))"), moved)
        _ = try await cli.run(["refresh"])
        assertNoLoginReached(other)
        XCTAssertGreaterThanOrEqual(other.log.requests.count, 2, "the moved feed was asked for")
        // Then the new host wants a login (another move, on its own host): podq says why it sends none.
        other.requireLogin(user: "me", password: secret)
        other.move("/static/members.xml", to: other.url("/private/static/members.xml"))
        let (failed, fout, ferr) = try await cli.run(["refresh"])
        XCTAssertNotEqual(failed.code, 0)
        assertNoLoginReached(other)
        XCTAssertTrue((fout + ferr).contains("so podq sent none to 127.0.0.2") && (fout + ferr).contains("podq login 1 --user me"), fout + ferr)
        // The user says so: the login now goes to the new host.
        _ = try await cli.run(["login", "1", "--user", "me"], stdinPath: passwordFile)
        other.log.reset()
        let (refreshed, rout, rerr) = try await cli.run(["refresh"])
        XCTAssertEqual(refreshed.code, 0, rout + rerr)
        XCTAssertNotNil(other.log.requests.last?.header("Authorization"), "after podq login, the new host gets it")
    }

    func testAWebPagesFeedLinkToAnotherHostGetsNoLogin() async throws {
        other.serve(feed(title: "Elsewhere"), as: "feed.xml")
        let page = "<html><head><link rel=\"alternate\" type=\"application/rss+xml\" href=\"\(other.url("/static/feed.xml"))\"></head></html>"
        server.serve(Array(page.utf8), as: "site.html", type: "text/html")
        let (added, out, err) = try await cli.run(["add", "--user", "me", server.url("/static/site.html").absoluteString], stdinPath: passwordFile)
        XCTAssertEqual(added.code, 0, out + err)
        _ = try await cli.run(["refresh"])
        _ = try await cli.run(["refresh"])
        assertNoLoginReached(other)
        XCTAssertGreaterThanOrEqual(other.log.requests.count, 3)
        // Where it is wanted there, podq says to add the feed's own URL with the login.
        other.requireLogin(user: "me", password: secret)
        other.serve(feed(title: "Elsewhere"), as: "private.xml")
        let page2 = "<html><head><link rel=\"alternate\" type=\"application/rss+xml\" href=\"\(other.url("/private/static/private.xml"))\"></head></html>"
        server.serve(Array(page2.utf8), as: "site2.html", type: "text/html")
        let (refused, rout, rerr) = try await cli.run(["add", "--user", "me", server.url("/static/site2.html").absoluteString], stdinPath: passwordFile)
        XCTAssertNotEqual(refused.code, 0)
        assertNoLoginReached(other)
        XCTAssertTrue((rout + rerr).contains("podq add \(other.url("/private/static/private.xml")) --user me"), rout + rerr)
    }

    func testANewFeedURLOnAnotherHostGetsNoLogin() async throws {
        server.requireLogin(user: "me", password: secret)
        other.serve(feed(title: "Moved"), as: "members.xml")
        let moved = other.url("/static/members.xml")
        server.serve(feed(title: "Members", extra: "<itunes:new-feed-url>\(moved)</itunes:new-feed-url>"), as: "members.xml")
        _ = try await cli.run(["add", "--user", "me", server.url("/private/static/members.xml").absoluteString], stdinPath: passwordFile)
        _ = try await cli.run(["refresh"])
        _ = try await cli.run(["refresh"])
        let (_, feeds, _) = try await cli.run(["feeds"])
        XCTAssertTrue(feeds.contains(moved.absoluteString), "the subscription moved: \(feeds)")
        assertNoLoginReached(other)
        XCTAssertGreaterThanOrEqual(other.log.requests.count, 2, "the new URL was asked for")
    }

    func testAHooksURLHasNoLoginAndAPasswordCommandGetsTheUserAsOneWordWhateverItHolds() async throws {
        // PODQ_URL without user:password@.
        try FileManager.default.createDirectory(atPath: cli.home, withIntermediateDirectories: true)
        let out = dir.file("hook.txt")
        let script = dir.file("hook.sh")
        try "#!/bin/sh\nprintf %s \"$PODQ_URL\" > '\(out)'\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        try "on-complete = \"\(script)\"\n".write(toFile: cli.home + "/config", atomically: true, encoding: .utf8)
        var components = URLComponents(url: server.dataURL(size: 3000, name: "x.mp3"), resolvingAgainstBaseURL: false)!
        (components.user, components.password) = ("me", secret)
        let (done, dout, derr) = try await cli.run(["download", "--download-dir", dir.file("out"), components.url!.absoluteString])
        XCTAssertEqual(done.code, 0, dout + derr)
        let url = try String(contentsOfFile: out, encoding: .utf8)
        XCTAssertFalse(url.contains(secret) || url.contains("me@"), url)
        XCTAssertTrue(url.hasPrefix("http://127.0.0.1:"), url)

        // %u and %h in one pass, each one quoted word: a user name holding %h, a quote and $(…).
        try "".write(toFile: cli.home + "/config", atomically: true, encoding: .utf8)
        let user = "o'brien%h$(id)"
        server.requireLogin(user: user, password: secret)
        server.serve(Array("<rss><channel><title>Q</title></channel></rss>".utf8), as: "q.xml")
        let seen = dir.file("seen.txt")
        let (added, aout, aerr) = try await cli.run([
            "add", "--user", user, "--password-command", "printf '%s|%s' %u %h > '\(seen)'; echo \(secret)",
            server.url("/private/static/q.xml").absoluteString,
        ])
        XCTAssertEqual(added.code, 0, aout + aerr)
        XCTAssertEqual(try String(contentsOfFile: seen, encoding: .utf8), "\(user)|127.0.0.1")
    }
}
