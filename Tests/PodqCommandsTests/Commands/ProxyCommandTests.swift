import Foundation
import PodqCore
import PodqSession
import PodqTestSupport
import XCTest

/// Proxies through the real binary, as curl reads them: the `*_proxy` variables (lower case first;
/// `http_proxy` only in lower case), the config's `proxy`, `no_proxy`, HTTPS through CONNECT. A small
/// forward proxy in the test support records what went through it.
final class ProxyCommandTests: CLITestCase {
    private var proxy: ForwardProxy!
    /// None of the machine's own proxy settings.
    private let clean = ["http_proxy": "", "https_proxy": "", "HTTPS_PROXY": "", "all_proxy": "", "ALL_PROXY": "", "no_proxy": "", "NO_PROXY": ""]

    override func setUp() async throws {
        try await super.setUp()
        proxy = try ForwardProxy()
    }

    override func tearDown() async throws {
        proxy.stop()
        try await super.tearDown()
    }

    private func env(_ values: [String: String]) -> [String: String] { clean.merging(values) { $1 } }

    private func feed(_ name: String) -> String {
        server.serve(
            Array(
                """
                <?xml version="1.0"?><rss version="2.0"><channel><title>Proxied</title>
                <item><title>One</title><guid>1</guid><enclosure url="/data/one.mp3?size=3000&amp;seed=2"/></item></channel></rss>
                """.utf8), as: name)
        return server.url("/static/\(name)").absoluteString
    }

    func testHTTPProxyCarriesFeedsAndMediaAndNoProxySkipsIt() async throws {
        let url = feed("p.xml")
        let (added, out, err) = try await cli.run(["add", url], environment: env(["http_proxy": proxy.url]))
        XCTAssertEqual(added.code, 0, out + err)
        let media = server.dataURL(size: 4000, seed: 3, name: "m.mp3").absoluteString
        let (downloaded, dout, derr) = try await cli.run(["download", "--download-dir", dir.file("out"), media], environment: env(["http_proxy": proxy.url]))
        XCTAssertEqual(downloaded.code, 0, dout + derr)
        XCTAssertEqual(FileHash.sha256(path: dir.file("out/m.mp3")), PatternSource(seed: 3, length: 4000).sha256)
        // Plain http goes as curl sends it, the whole URL to the proxy (no CONNECT, which squid and
        // tinyproxy refuse for port 80 by default).
        XCTAssertEqual(proxy.requests.map(\.method), ["GET", "GET"])
        XCTAssertEqual(proxy.requests.map(\.target), [url, media], "absolute-URI requests through the proxy")

        // no_proxy names the host (with a port, or as a range): direct.
        for skip in ["127.0.0.1", "127.0.0.0/8", "localhost,127.0.0.1:9", "*"] {
            let before = proxy.requests.count
            let (again, aout, aerr) = try await cli.run(["parse", url], environment: env(["http_proxy": proxy.url, "no_proxy": skip]))
            XCTAssertEqual(again.code, 0, aout + aerr)
            XCTAssertEqual(proxy.requests.count, before, "no_proxy=\(skip) goes direct")
        }
        // HTTP_PROXY in upper case is not read (curl's rule: a CGI request can set it); ALL_PROXY is.
        let before = proxy.requests.count
        let (ignored, iout, ierr) = try await cli.run(["parse", url], environment: env(["HTTP_PROXY": "http://127.0.0.1:1"]))
        XCTAssertEqual(ignored.code, 0, "HTTP_PROXY (a dead port) was not used: " + iout + ierr)
        _ = try await cli.run(["parse", url], environment: env(["ALL_PROXY": proxy.url]))
        XCTAssertEqual(proxy.requests.count, before + 1)
    }

    func testAGzipFeedAndAResumeGoThroughTheProxyAsTheyWouldDirect() async throws {
        let feedBytes = Array(
            """
            <?xml version="1.0"?><rss version="2.0"><channel><title>Zipped</title>
            <item><title>One</title><guid>1</guid><enclosure url="/data/one.mp3?size=3000"/></item></channel></rss>
            """.utf8)
        server.serve(StoredDeflate.gzip(feedBytes), as: "gz.xml", headers: [("Content-Encoding", "gzip")])
        let (parsed, out, err) = try await cli.run(["parse", server.url("/static/gz.xml").absoluteString], environment: env(["http_proxy": proxy.url]))
        XCTAssertEqual(parsed.code, 0, out + err)
        XCTAssertTrue(out.contains("Zipped"), out)
        // A download cut at 100 KB resumes through the proxy (Range, 206) to the right bytes.
        let media = server.dataURL(size: 300_000, seed: 8, name: "cut.mp3", ["dropFirst": "100000"]).absoluteString
        let (downloaded, dout, derr) = try await cli.run(["download", "--download-dir", dir.file("out"), media], environment: env(["http_proxy": proxy.url]))
        XCTAssertEqual(downloaded.code, 0, dout + derr)
        XCTAssertEqual(FileHash.sha256(path: dir.file("out/cut.mp3")), PatternSource(seed: 8, length: 300_000).sha256)
        XCTAssertTrue(server.log.requests.contains { $0.header("Range") != nil }, "the second attempt resumed")
        XCTAssertTrue(proxy.requests.allSatisfy { $0.method == "GET" })
    }

    func testAStallThroughTheProxyIsTimedAndResumed() async throws {
        try FileManager.default.createDirectory(atPath: cli.home, withIntermediateDirectories: true)
        try "stall-timeout = 1\nretry-delay = 0.1\n".write(toFile: cli.home + "/config", atomically: true, encoding: .utf8)
        let media = server.dataURL(size: 200_000, seed: 9, name: "stall.mp3", ["stallFirst": "50000:4"]).absoluteString
        let (exit, out, err) = try await cli.run(["download", "--download-dir", dir.file("out"), media], environment: env(["http_proxy": proxy.url]))
        XCTAssertEqual(exit.code, 0, out + err)
        XCTAssertTrue(out.contains("No data arrived for 1 s"), out)
        XCTAssertEqual(FileHash.sha256(path: dir.file("out/stall.mp3")), PatternSource(seed: 9, length: 200_000).sha256)
        XCTAssertEqual(proxy.requests.map(\.method), ["GET", "GET"])
    }

    func testAProxyThatIsDownIsSaidWithItsAddress() async throws {
        try FileManager.default.createDirectory(atPath: cli.home, withIntermediateDirectories: true)
        try "max-attempts = 1\n".write(toFile: cli.home + "/config", atomically: true, encoding: .utf8)
        let (exit, out, err) = try await cli.run(
            ["download", "--download-dir", dir.file("out"), server.dataURL(size: 10).absoluteString],
            environment: env(["http_proxy": "http://127.0.0.1:1"]))
        XCTAssertNotEqual(exit.code, 0)
        XCTAssertTrue((out + err).contains("the proxy http://127.0.0.1:1"), out + err)
    }

    func testHTTPSGoesThroughCONNECTAndTheConfigsProxyWins() async throws {
        let certificates = try TestCertificates.make(.valid)
        let secure = try await TestServer.start(tls: try certificates.serverContext())
        defer { Task { await secure.stop() } }
        secure.serve(
            Array(
                """
                <?xml version="1.0"?><rss version="2.0"><channel><title>Secure</title>
                <item><title>One</title><guid>1</guid><enclosure url="/data/one.mp3?size=3000"/></item></channel></rss>
                """.utf8), as: "s.xml")
        let caFile = dir.file("ca.pem")
        try certificates.caPEM.write(toFile: caFile, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: cli.home, withIntermediateDirectories: true)
        try "proxy = \"http://who:pw@127.0.0.1:\(proxy.port)\"\n".write(toFile: cli.home + "/config", atomically: true, encoding: .utf8)
        let trust = ["SSL_CERT_FILE": caFile, "SSL_CERT_DIR": ""]
        // https_proxy points nowhere: the config's proxy wins, as curl's -x does.
        let (added, out, err) = try await cli.run(
            ["add", secure.url("/static/s.xml").absoluteString],
            environment: env(trust.merging(["https_proxy": "http://127.0.0.1:1"]) { $1 }))
        XCTAssertEqual(added.code, 0, out + err)
        XCTAssertEqual(proxy.requests.first?.method, "CONNECT")
        XCTAssertEqual(proxy.requests.first?.target, "127.0.0.1:\(secure.port)")
        XCTAssertEqual(proxy.requests.first?.authorization, "Basic " + Data("who:pw".utf8).base64EncodedString())
        XCTAssertFalse((out + err).contains("pw@"), "the proxy's password is never printed")
    }

    func testAProxyPodqCannotUseIsSaidWithItsName() async throws {
        let (exit, out, err) = try await cli.run(["parse", feed("x.xml")], environment: env(["http_proxy": "ftp://proxy.example:21"]))
        XCTAssertNotEqual(exit.code, 0)
        XCTAssertTrue(err.contains("http_proxy=ftp://proxy.example:21 cannot be used"), out + err)
    }

    func testAPodcastsOwnUserAgentGoesWithItsFeedAndEpisodes() async throws {
        let url = feed("ua.xml")
        let (added, out, err) = try await cli.run(["add", "--user-agent", "Special/1.0", url])
        XCTAssertEqual(added.code, 0, out + err)
        _ = try await cli.run(["queue", "add", "--download-dir", dir.file("out"), "1"])
        let (downloaded, dout, derr) = try await cli.run(["download"])
        XCTAssertEqual(downloaded.code, 0, dout + derr)
        XCTAssertEqual(server.log.requests.map { $0.header("User-Agent") ?? "" }, ["Special/1.0", "Special/1.0"])
    }

    /// A proxy that wants a login answers 407: said as the proxy's, not blamed on the server, for
    /// media, feeds and https through its tunnel; with the login in its URL, it goes through.
    func testAProxysLoginIsAskedForAsTheProxys() async throws {
        let locked = try ForwardProxy(login: ("px", "pw"))
        defer { locked.stop() }
        let media = server.dataURL(size: 4000, seed: 3, name: "m.mp3").absoluteString
        let (failed, out, err) = try await cli.run(
            ["download", "--download-dir", dir.file("out"), media],
            environment: env(["http_proxy": locked.url]))
        XCTAssertNotEqual(failed.code, 0)
        XCTAssertTrue((out + err).contains("The proxy http://127.0.0.1:\(locked.port) wants a login (HTTP 407)"), out + err)
        XCTAssertFalse((out + err).contains("The server answered HTTP 407"), out + err)
        let (feedFailed, fout, ferr) = try await cli.run(["add", feed("l.xml")], environment: env(["http_proxy": locked.url]))
        XCTAssertNotEqual(feedFailed.code, 0)
        XCTAssertTrue((fout + ferr).contains("wants a login (HTTP 407)"), fout + ferr)
        let (wrong, wout, werr) = try await cli.run(["add", feed("w.xml")], environment: env(["http_proxy": "http://px:nope@127.0.0.1:\(locked.port)"]))
        XCTAssertNotEqual(wrong.code, 0)
        XCTAssertTrue((wout + werr).contains("refused its login (HTTP 407)") && !(wout + werr).contains("nope"), wout + werr)
        let (ok, oout, oerr) = try await cli.run(["add", feed("ok.xml")], environment: env(["http_proxy": "http://px:pw@127.0.0.1:\(locked.port)"]))
        XCTAssertEqual(ok.code, 0, oout + oerr)
    }

    /// The same 407 to an https tunnel (CONNECT), for a feed and for media: one wording, the proxy's
    /// (was: "Network error: HTTPClientError.proxyAuthenticationRequired").
    func testAProxysLoginIsAskedForTheSameWayForAnHTTPSTunnel() async throws {
        let certificates = try TestCertificates.make(.valid)
        let secure = try await TestServer.start(tls: try certificates.serverContext())
        defer { Task { await secure.stop() } }
        secure.serve(Array("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>S</title></channel></rss>".utf8), as: "s.xml")
        let caFile = dir.file("ca.pem")
        try certificates.caPEM.write(toFile: caFile, atomically: true, encoding: .utf8)
        let locked = try ForwardProxy(login: ("px", "pw"))
        defer { locked.stop() }
        for (login, said) in [("", "wants a login (HTTP 407)"), ("px:nope@", "refused its login (HTTP 407)")] {
            let environment = env(["https_proxy": "http://\(login)127.0.0.1:\(locked.port)", "SSL_CERT_FILE": caFile, "SSL_CERT_DIR": ""])
            for arguments in [
                ["add", secure.url("/static/s.xml").absoluteString],
                ["download", "--download-dir", dir.file("out"), secure.dataURL(size: 4000, seed: 3, name: "m\(login.count).mp3").absoluteString],
            ] {
                let (exit, out, err) = try await cli.run(arguments, environment: environment)
                XCTAssertNotEqual(exit.code, 0, out + err)
                XCTAssertTrue((out + err).contains("127.0.0.1:\(locked.port) \(said)"), "\(arguments[0]): " + out + err)
                XCTAssertFalse((out + err).contains("HTTPClientError") || (out + err).contains("nope"), out + err)
            }
        }
    }
}
