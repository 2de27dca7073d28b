import Foundation
import PodqServer
import PodqTestSupport
import XCTest

/// The wire, through the binary: an answer whose head comes in several writes with the connection kept
/// open downloads as curl does, a feed whose head is cut so reads too, and a head of a megabyte is
/// refused as soon as it passes the limit, in words.
final class WireCommandTests: CLITestCase {
    private func mp3(_ count: Int) -> [UInt8] {
        Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0] + (0..<count - 10).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    }

    private func config(_ text: String) throws {
        try FileManager.default.createDirectory(atPath: cli.home, withIntermediateDirectories: true)
        try text.write(toFile: cli.home + "/config", atomically: true, encoding: .utf8)
    }

    func testAHeadInTwoWritesWithTheConnectionKeptOpenDownloads() async throws {
        let body = mp3(5000)
        let answer = Array("HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
        let server = try await ScriptedServer.start(.cut(answer, at: [17], pause: .milliseconds(20)))
        defer { Task { await server.stop() } }
        try config("max-attempts = 1\nresponse-timeout = 10\n")
        let (exit, out, err) = try await cli.run(["download", "--download-dir", dir.file("out"), server.url("/split.mp3")], timeout: 30)
        XCTAssertEqual(exit.code, 0, out + err)
        XCTAssertEqual(try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir.file("out/split.mp3")))), body)
    }

    func testEveryResponseInOneByteWritesDownloadsAndResumes() async throws {
        // The first answer breaks off after 3000 bytes; the second (a resume: 206 from byte 3000) comes
        // one byte a write, its head included.
        let body = mp3(6000)
        let first =
            Array("HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nETag: \"e1\"\r\nAccept-Ranges: bytes\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
            + body.prefix(3000)
        let second =
            Array(
                ("HTTP/1.1 206 Partial Content\r\nContent-Type: audio/mpeg\r\nETag: \"e1\"\r\n"
                    + "Content-Range: bytes 3000-5999/6000\r\nContent-Length: 3000\r\n\r\n").utf8) + body.suffix(3000)
        let server = try await ScriptedServer.start { n in
            n == 0
                ? .cut(first, at: [40, 41, 900], pause: .milliseconds(3), closeAfter: true)
                : .cut(second, at: Array(1..<second.count))
        }
        defer { Task { await server.stop() } }
        try config("max-attempts = 2\nretry-delay = 0.1\nresponse-timeout = 10\n")
        let (exit, out, err) = try await cli.run(["download", "--download-dir", dir.file("out"), server.url("/resume.mp3")], timeout: 60)
        XCTAssertEqual(exit.code, 0, out + err)
        XCTAssertTrue(out.contains("resumed"), out)
        XCTAssertEqual(try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir.file("out/resume.mp3")))), body)
    }

    func testAHeaderOfAMegabyteIsRefusedAtOnceInWords() async throws {
        let head = Array("HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nSet-Cookie: a=".utf8) + [UInt8](repeating: 0x61, count: 1 << 20)
        let server = try await ScriptedServer.start(.cut(head, at: Array(stride(from: 8192, to: head.count, by: 8192))))
        defer { Task { await server.stop() } }
        // A response-timeout far longer than the test: only the limit can end it.
        try config("max-attempts = 1\nresponse-timeout = 600\n")
        let (exit, out, err) = try await cli.run(["download", "--download-dir", dir.file("out"), server.url("/cookie.mp3")], timeout: 60)
        XCTAssertEqual(exit.code, 1, out + err)
        XCTAssertTrue((out + err).contains("headers longer than 64 KiB"), out + err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("out/cookie.mp3")))
    }

    func testAFeedThatTricklesEndsAtFetchTimeoutInWords() async throws {
        let body = Array("<rss><channel><title>Slow</title></channel></rss>".utf8)
        let head = Array("HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
        let server = try await ScriptedServer.start(
            ScriptedServer.Script(
                [ScriptedServer.Piece(head)]
                    + body.map { ScriptedServer.Piece([$0], after: .seconds(1)) }))
        defer { Task { await server.stop() } }
        try config("fetch-timeout = 2\n")
        let (exit, out, err) = try await cli.run(["add", server.url("/feed.xml")], timeout: 60)
        XCTAssertNotEqual(exit.code, 0)
        XCTAssertTrue((out + err).contains("did not send it whole within 2 s (fetch-timeout)"), out + err)
    }

    /// `fetch-timeout` bounds the whole fetch, redirects included: six hops of 0.8 s each (every one
    /// well inside the limit alone) end the fetch at 3 s, said in words; a sync call's redirects share
    /// one clock the same way (SyncConnection).
    func testFetchTimeoutBoundsTheWholeChainOfRedirects() async throws {
        server.serve(Array("<rss><channel><title>Far</title></channel></rss>".utf8), as: "far.xml")
        try config("fetch-timeout = 3\n")
        let (exit, out, err) = try await cli.run(["add", server.url("/redirect/6?to=/static/far.xml&hopDelay=0.8").absoluteString], timeout: 60)
        XCTAssertNotEqual(exit.code, 0, out + err)
        XCTAssertTrue((out + err).contains("did not send it whole within 3 s (fetch-timeout)"), out + err)
        // Fewer hops, inside the limit: the same feed comes.
        let (near, nout, nerr) = try await cli.run(["add", server.url("/redirect/2?to=/static/far.xml&hopDelay=0.8").absoluteString], timeout: 60)
        XCTAssertEqual(near.code, 0, nout + nerr)
    }

    /// A feed sent compressed as br (or zstd) unasked is named as such, not read as an empty file.
    func testAFeedInACodingPodqDidNotAskForIsNamed() async throws {
        let body: [UInt8] = [0x1B, 0x2A, 0x00, 0xF8, 0x8D, 0x94, 0x6E, 0xDE, 0x44, 0x63, 0x31, 0x85, 0x10]
        let answer = Array("HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\nContent-Encoding: br\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
        let server = try await ScriptedServer.start(.cut(answer, at: [], closeAfter: true))
        defer { Task { await server.stop() } }
        let (exit, out, err) = try await cli.run(["add", server.url("/feed.xml")])
        XCTAssertNotEqual(exit.code, 0)
        XCTAssertTrue((out + err).contains("compressed as br (Content-Encoding), which podq did not ask for"), out + err)
        XCTAssertFalse((out + err).contains("empty"), out + err)
    }

    /// A paged feed whose second page fails keeps the first page's episodes, and says so.
    func testAPagedFeedWhoseSecondPageFailsKeepsTheFirst() async throws {
        let http = try await TestServer.start()
        defer { Task { await http.stop() } }
        let items = (1...3).map { "<item><title>E\($0)</title><guid>\($0)</guid><enclosure url=\"/data/e\($0).mp3?size=1000\"/></item>" }.joined()
        http.serve(
            Array(
                """
                <?xml version="1.0"?><rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>Paged</title>
                <atom:link rel="next" href="/status/500"/>\(items)</channel></rss>
                """.utf8), as: "paged.xml")
        let (added, out, err) = try await cli.run(["add", http.url("/static/paged.xml").absoluteString])
        XCTAssertEqual(added.code, 0, out + err)
        XCTAssertTrue(out.contains("3 episodes") && out.contains("page 2 of the paged feed could not be read"), out)
    }

    /// A web page refused at its first bytes, whose rest the client had read already in the same read
    /// (many small chunks of a chunked body in one write, decoded into many parts at once): none of
    /// what follows the refusal reaches the file, whatever the chunk size and whether the page is
    /// labelled as one or as nothing in particular. No file and no partial are left.
    func testARefusedPageWhoseRestCameInTheSameReadLeavesNoFile() async throws {
        let page = Array("<!DOCTYPE html><html><body>Please log in".utf8) + [UInt8](repeating: 0x2E, count: 4000) + Array("</body></html>".utf8)
        try config("max-attempts = 1\nresponse-timeout = 10\n")
        var n = 0
        for size in [1, 7, 100, 511, 513, 1500] {
            for type in ["text/html; charset=utf-8", "application/octet-stream"] {
                n += 1
                var body: [UInt8] = []
                for start in stride(from: 0, to: page.count, by: size) {
                    let piece = page[start..<min(start + size, page.count)]
                    body += Array((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Array("\r\n".utf8)
                }
                body += Array("0\r\n\r\n".utf8)
                let head = Array("HTTP/1.1 200 OK\r\nContent-Type: \(type)\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
                let server = try await ScriptedServer.start(ScriptedServer.Script([ScriptedServer.Piece(head + body)], closeAfter: true))
                defer { Task { await server.stop() } }
                let name = "page\(n).mp3"
                let (exit, out, err) = try await cli.run(["download", "--download-dir", dir.file("out"), server.url("/" + name)], timeout: 30)
                let what = "chunks of \(size), \(type)"
                XCTAssertEqual(exit.code, 1, what + ": " + out + err)
                XCTAssertTrue((out + err).contains("sent a web page, not audio"), what + ": " + out + err)
                XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("out/" + name)), what)
                XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("out/" + name + ".part")), what)
            }
        }
    }
}
