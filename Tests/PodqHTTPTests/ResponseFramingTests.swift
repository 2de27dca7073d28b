import NIOCore
import PodqCore
import PodqServer
import PodqTestAssertions
import PodqTestSupport
import XCTest

@testable import PodqHTTP

/// podq's own connection reads an answer however its bytes are cut: at every byte boundary of the head
/// and of a chunked body, in one-byte writes, at random places with random pauses (seeded), with the
/// connection kept open or closed after it. A head longer than the limit is refused as it passes it,
/// not waited for.
final class ResponseFramingTests: XCTestCase {
    private var transport: AsyncHTTPTransport!

    override func setUp() async throws {
        // A head that stalls fails here in 5 s, not after the default 30.
        transport = AsyncHTTPTransport(stallTimeout: .seconds(5), responseTimeout: .seconds(5))
    }

    override func tearDown() async throws {
        await transport.shutdown()
    }

    private func body(of size: Int, seed: UInt64) -> [UInt8] {
        PatternSource(seed: seed, length: Int64(size)).bytes(count: size)
    }

    private func answer(_ body: [UInt8], chunked: Bool = false, extraHeaders: String = "", status: String = "200 OK") -> [UInt8] {
        var head = "HTTP/1.1 \(status)\r\nContent-Type: audio/mpeg\r\nETag: \"v1\"\r\n" + extraHeaders
        if !chunked {
            head += "Content-Length: \(body.count)\r\n\r\n"
            return Array(head.utf8) + body
        }
        head += "Transfer-Encoding: chunked\r\n\r\n"
        var out = Array(head.utf8)
        var from = 0
        var size = 1
        while from < body.count {
            let piece = body[from..<min(body.count, from + size)]
            out += Array((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Array("\r\n".utf8)
            from += piece.count
            size = size * 3 + 1
        }
        return out + Array("0\r\n\r\n".utf8)
    }

    /// Fetches `url` and returns the status, an ETag and the body.
    private func fetch(_ url: String) async throws -> (status: Int, etag: String?, body: [UInt8]) {
        let response = try await transport.send(TransportRequest(url: URL(string: url)!))
        var bytes: [UInt8] = []
        for try await chunk in response.body { bytes += chunk.readableBytesView }
        return (response.status, response.headers.first(name: "ETag"), bytes)
    }

    func testTheIssuesSampleStatusLineThenTheRestTwentyMillisecondsLaterWithTheConnectionKeptOpen() async throws {
        let content = body(of: 1000, seed: 3)
        let full = answer(content)
        let statusLine = Array("HTTP/1.1 200 OK\r\n".utf8).count
        let server = try await ScriptedServer.start(.cut(full, at: [statusLine], pause: .milliseconds(20)))
        defer { Task { await server.stop() } }
        let got = try await fetch(server.url())
        XCTAssertEqual(got.status, 200)
        XCTAssertEqual(got.body, content)
    }

    func testAHeadCutAtEveryByteBoundaryIsReadWhole() async throws {
        let content = body(of: 300, seed: 4)
        let full = answer(content, extraHeaders: "Set-Cookie: a=\(String(repeating: "c", count: 40))\r\n")
        let server = try await ScriptedServer.start { n in .cut(full, at: [n + 1], pause: .milliseconds(2)) }
        defer { Task { await server.stop() } }
        for cut in 1..<full.count {
            let got = try await fetch(server.url("/\(cut).mp3"))
            XCTAssertEqual(got.status, 200, "cut at \(cut)")
            XCTAssertEqual(got.etag, "\"v1\"", "cut at \(cut)")
            XCTAssertEqual(got.body, content, "cut at \(cut)")
        }
    }

    func testAChunkedBodyCutAtEveryByteBoundaryIsReadWhole() async throws {
        let content = body(of: 200, seed: 5)
        let full = answer(content, chunked: true)
        let server = try await ScriptedServer.start { n in .cut(full, at: [n + 1], pause: .milliseconds(2)) }
        defer { Task { await server.stop() } }
        for cut in 1..<full.count {
            let got = try await fetch(server.url("/\(cut).mp3"))
            XCTAssertEqual(got.body, content, "cut at \(cut)")
        }
    }

    func testAnAnswerInOneByteWritesWithAnInterimAnswerFirst() async throws {
        let content = body(of: 64, seed: 6)
        let full = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8) + answer(content)
        let server = try await ScriptedServer.start(.cut(full, at: Array(1..<full.count), pause: .milliseconds(1)))
        defer { Task { await server.stop() } }
        let got = try await fetch(server.url())
        XCTAssertEqual(got.status, 200)
        XCTAssertEqual(got.body, content)
    }

    /// The class: random answers (length or chunked, bodies of 0 to 20,000 bytes, heads of a few bytes
    /// to 6 KiB), cut at random places with random pauses, the connection closed or kept open.
    func testRandomAnswersCutAtRandomPlacesAreReadWhole() async throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["PODQ_FRAMING_SEED"] ?? "") ?? 2911
        var random = SeededGenerator(seed: seed)
        var cases: [(script: ScriptedServer.Script, body: [UInt8])] = []
        for index in 0..<150 {
            let size = Int.random(in: 0..<4, using: &random) == 0 ? 0 : Int.random(in: 1...20_000, using: &random)
            let content = body(of: size, seed: UInt64(index))
            let padding = String(repeating: "p", count: Int.random(in: 0...6000, using: &random))
            let full = answer(content, chunked: Bool.random(using: &random), extraHeaders: "X-Padding: \(padding)\r\n")
            cases.append((.random(full, using: &random, maxPause: 3, closeAfter: Bool.random(using: &random)), content))
        }
        let scripts = cases.map(\.script)
        let server = try await ScriptedServer.start { n in scripts[n] }
        defer { Task { await server.stop() } }
        for (index, item) in cases.enumerated() {
            let got = try await fetch(server.url("/\(index).mp3"))
            XCTAssertEqual(got.status, 200, "case \(index) of seed \(seed) (PODQ_FRAMING_SEED)")
            XCTAssertEqual(got.body, item.body, "case \(index) of seed \(seed) (PODQ_FRAMING_SEED)")
        }
    }

    private func expectHeadTooLarge(_ script: ScriptedServer.Script, file: StaticString = #filePath, line: UInt = #line) async throws {
        let server = try await ScriptedServer.start(script)
        defer { Task { await server.stop() } }
        do {
            _ = try await fetch(server.url())
            XCTFail("a head past the limit is refused", file: file, line: line)
        } catch let error as DownloadError {
            XCTAssertEqual(error, .headTooLarge(limit: ResponseHeadGuard.limit), file: file, line: line)
            XCTAssertFalse(error.isRetryable, file: file, line: line)
            XCTAssertTrue(error.localizedDescription.contains("longer than 64 KiB"), error.localizedDescription, file: file, line: line)
        }
    }

    func testAHeaderLineOfAMegabyteIsRefusedAsItPassesTheLimit() async throws {
        let line = Array("HTTP/1.1 200 OK\r\nX-Huge: ".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
        // In 4 KiB pieces, the connection kept open: the refusal comes from the count, not from a close.
        try await expectHeadTooLarge(.cut(line, at: Array(stride(from: 4096, to: line.count, by: 4096)), pause: .milliseconds(1)))
    }

    func testAStatusLineThatNeverEndsAndManySmallHeadersAreRefusedToo() async throws {
        let status = Array("HTTP/1.1 200 ".utf8) + [UInt8](repeating: UInt8(ascii: "O"), count: 200_000)
        try await expectHeadTooLarge(.cut(status, at: Array(stride(from: 8192, to: status.count, by: 8192))))
        let many = Array("HTTP/1.1 200 OK\r\n".utf8) + Array(String(repeating: "X-A: b\r\n", count: 20_000).utf8)
        try await expectHeadTooLarge(.cut(many, at: Array(stride(from: 1000, to: many.count, by: 1000))))
    }

    func testAHeadJustUnderTheLimitWithItsBodyInTheSameReadsIsTaken() async throws {
        let content = body(of: 100_000, seed: 8)
        let padding = String(repeating: "q", count: ResponseHeadGuard.limit - 200)
        let full = answer(content, extraHeaders: "X-Padding: \(padding)\r\n")
        let server = try await ScriptedServer.start(.cut(full, at: [full.count - content.count + 50_000]))
        defer { Task { await server.stop() } }
        let got = try await fetch(server.url())
        XCTAssertEqual(got.body, content, "the body's bytes read with the head do not count against it")
    }
}
