import PodqTestSupport
import XCTest

/// HTTPS through the real binary against the in-process server with certificates made for the test:
/// a certificate that does not verify fails at once (never retried) with the reason and how to trust
/// a CA; `SSL_CERT_FILE` and `SSL_CERT_DIR` are honoured as curl and OpenSSL honour them.
final class TLSCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!
    override func setUp() { dir = TemporaryDirectory("podq-tls") }
    override func tearDown() { dir.remove() }

    /// The machine's own trust settings are not the test's.
    private let systemTrust = ["SSL_CERT_FILE": "", "SSL_CERT_DIR": ""]

    private func serve(_ kind: TestCertificates.Kind) async throws -> (TestServer, TestCertificates) {
        let certificates = try TestCertificates.make(kind)
        let server = try await TestServer.start(tls: try certificates.serverContext())
        server.serve(
            Array(
                """
                <?xml version="1.0"?><rss version="2.0"><channel><title>Private</title>
                <item><title>One</title><guid>1</guid><enclosure url="/data/one.mp3?size=5000&amp;seed=4"/></item></channel></rss>
                """.utf8), as: "feed.xml")
        return (server, certificates)
    }

    func testAPrivateCAIsRefusedAtOnceAndTrustedThroughSSL_CERT_FILE() async throws {
        let (server, certificates) = try await serve(.valid)
        defer { Task { await server.stop() } }
        let cli = PodqInvocation(home: dir.file("home"), directory: dir.path)
        let feed = server.url("/static/feed.xml").absoluteString
        XCTAssertTrue(feed.hasPrefix("https://127.0.0.1:"))

        let (refused, _, err) = try await cli.run(["add", feed], environment: systemTrust)
        XCTAssertEqual(refused.code, 1, err)
        XCTAssertTrue(err.contains("The server's certificate is not trusted (it is signed by an authority this machine does not trust"), err)
        XCTAssertTrue(err.contains("SSL_CERT_FILE"), "says how to trust a CA: \(err)")
        XCTAssertFalse(err.contains("BoringSSL") || err.contains("handshake"), "no raw library text: \(err)")

        // A download is not retried five times over 86 s: one attempt, failed.
        let (download, out, derr) = try await cli.run(["download", server.url("/data/x.mp3?size=100").absoluteString], environment: systemTrust)
        XCTAssertEqual(download.code, 1, out + derr)
        XCTAssertTrue(out.contains("failed") && !out.contains("retrying"), out)
        XCTAssertEqual(server.log.requests.count, 0, "nothing was ever sent to an untrusted server")

        let caFile = dir.file("ca.pem")
        try certificates.caPEM.write(toFile: caFile, atomically: true, encoding: .utf8)
        let (trusted, tout, terr) = try await cli.run(["add", feed], environment: ["SSL_CERT_FILE": caFile, "SSL_CERT_DIR": ""])
        XCTAssertEqual(trusted.code, 0, terr)
        XCTAssertTrue(tout.contains("Private: 1 episode"), tout)

        // A folder of CA certificates does as well, and a path that is not there is named.
        let caFolder = dir.file("cas")
        try FileManager.default.createDirectory(atPath: caFolder, withIntermediateDirectories: true)
        try certificates.caPEM.write(toFile: caFolder + "/podq-test.pem", atomically: true, encoding: .utf8)
        let (folder, fout, ferr) = try await cli.run(["parse", feed], environment: ["SSL_CERT_FILE": "", "SSL_CERT_DIR": caFolder])
        XCTAssertEqual(folder.code, 0, fout + ferr)
        let (missing, _, merr) = try await cli.run(["parse", feed], environment: ["SSL_CERT_FILE": dir.file("nope.pem")])
        XCTAssertNotEqual(missing.code, 0)
        XCTAssertTrue(merr.contains("SSL_CERT_FILE=\(dir.file("nope.pem")) cannot be used: there is no file there"), merr)
    }

    func testAnExpiredCertificateAndOneForAnotherNameSaySo() async throws {
        let (expired, expiredCertificates) = try await serve(.expired)
        let caFile = dir.file("ca.pem")
        try expiredCertificates.caPEM.write(toFile: caFile, atomically: true, encoding: .utf8)
        let cli = PodqInvocation(home: dir.file("home"), directory: dir.path)
        let (_, _, err) = try await cli.run(
            ["parse", expired.url("/static/feed.xml").absoluteString], environment: ["SSL_CERT_FILE": caFile, "SSL_CERT_DIR": ""])
        XCTAssertTrue(err.contains("not trusted (it expired on "), err)
        await expired.stop()

        let (wrong, wrongCertificates) = try await serve(.wrongName)
        try wrongCertificates.caPEM.write(toFile: caFile, atomically: true, encoding: .utf8)
        let (_, _, err2) = try await cli.run(
            ["parse", wrong.url("/static/feed.xml").absoluteString], environment: ["SSL_CERT_FILE": caFile, "SSL_CERT_DIR": ""])
        XCTAssertTrue(err2.contains("not trusted (it was issued for another name than 127.0.0.1)"), err2)
        await wrong.stop()
    }

    func testHTTPSToAPlainHTTPServerSaysSoInWords() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let cli = PodqInvocation(home: dir.file("home"), directory: dir.path)
        let https = server.url("/static/feed.xml").absoluteString.replacingOccurrences(of: "http://", with: "https://")
        let (exit, _, err) = try await cli.run(["add", https], environment: systemTrust)
        XCTAssertEqual(exit.code, 1, err)
        XCTAssertTrue(err.contains("the server does not speak https on that port (try http://)"), err)
        XCTAssertFalse(err.contains("BoringSSL") || err.contains("handshakeFailed"), err)
    }

    /// Media goes over podq's own connection (not the feeds' client): the same trust, the same checks
    /// of the name (an IP address here) and the dates, the same words; and a segmented download's
    /// ranges over TLS.
    func testMediaOverHTTPSIsCheckedAsFeedsAre() async throws {
        let cli = PodqInvocation(home: dir.file("home"), directory: dir.path)
        let caFile = dir.file("ca.pem")
        let (valid, certificates) = try await serve(.valid)
        try certificates.caPEM.write(toFile: caFile, atomically: true, encoding: .utf8)
        let trust = ["SSL_CERT_FILE": caFile, "SSL_CERT_DIR": ""]
        let size: Int64 = 8 << 20
        let url = valid.dataURL(size: size, seed: 5, name: "secure.mp3", ["rate": "2000000", "digest": "repr"])
        let (ok, out, err) = try await cli.run(["download", "--download-dir", dir.file("out"), url.absoluteString], environment: trust, timeout: 120)
        XCTAssertEqual(ok.code, 0, out + err)
        XCTAssertEqual(FileHash.sha256(path: dir.file("out/secure.mp3")), PatternSource(seed: 5, length: size).sha256)
        XCTAssertGreaterThanOrEqual(valid.log.requests.filter { $0.header("Range") != nil }.count, 1, "segments over TLS")
        await valid.stop()

        for (kind, words) in [
            (TestCertificates.Kind.expired, "not trusted (it expired on "),
            (.wrongName, "not trusted (it was issued for another name than 127.0.0.1)"),
        ] {
            let (server, made) = try await serve(kind)
            try made.caPEM.write(toFile: caFile, atomically: true, encoding: .utf8)
            let (exit, out, err) = try await cli.run(
                ["download", "--download-dir", dir.file("bad"), server.url("/data/x.mp3?size=100").absoluteString],
                environment: trust)
            XCTAssertEqual(exit.code, 1, out + err)
            XCTAssertTrue((out + err).contains(words), out + err)
            XCTAssertFalse((out + err).contains("BoringSSL"), out + err)
            XCTAssertEqual(server.log.requests.count, 0, "nothing was sent to a server whose certificate failed")
            await server.stop()
        }

        let plain = try await TestServer.start()
        let https = plain.dataURL(size: 100, name: "p.mp3").absoluteString.replacingOccurrences(of: "http://", with: "https://")
        let (exit, pout, perr) = try await cli.run(["download", "--download-dir", dir.file("bad"), https], environment: systemTrust)
        XCTAssertEqual(exit.code, 1, pout + perr)
        XCTAssertTrue((pout + perr).contains("the server does not speak https on that port (try http://)"), pout + perr)
        XCTAssertFalse(pout.contains("retrying"), "a port without TLS does not get TLS by waiting: \(pout)")
        await plain.stop()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.file("bad")), [], "no file and no partial")
    }
}
