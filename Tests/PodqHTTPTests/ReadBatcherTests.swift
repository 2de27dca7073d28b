import NIOCore
import PodqCore
import PodqServer
import PodqTestSupport
import XCTest

@testable import PodqHTTP

/// A connection that reads in batches, over loopback: it batches when it opens among a crowd of
/// others (four shares of the read budget held here), and no byte waits for a batch that never fills: the last bytes of an
/// answer on a connection the server keeps open, a head that trickles in, an answer cut at random
/// places with random pauses. A held byte shows as a stall (5 s here), never as a pass.
final class ReadBatcherTests: XCTestCase {
    private var transport: AsyncHTTPTransport!
    /// Other connections' shares of the budget, held for the test: this one opens among them.
    private var others: [ReceiveBudget.Grant] = []

    override func setUp() async throws {
        transport = AsyncHTTPTransport(stallTimeout: .seconds(5), responseTimeout: .seconds(5))
        others = (0..<ReadBatching.crowd).map { _ in ReceiveBudget.shared.reserve() }
    }

    override func tearDown() async throws {
        for grant in others { ReceiveBudget.shared.release(grant) }
        await transport.shutdown()
    }

    private func answer(_ body: [UInt8]) -> [UInt8] {
        Array("HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
    }

    private func fetch(_ url: String) async throws -> [UInt8] {
        let response = try await transport.send(TransportRequest(url: URL(string: url)!))
        var bytes: [UInt8] = []
        for try await chunk in response.body { bytes += chunk.readableBytesView }
        return bytes
    }

    func testTheLastBytesOnAConnectionKeptOpenAreNotHeldForABatch() async throws {
        let content = PatternSource(seed: 45, length: 2_000_010).bytes(count: 2_000_010)
        let full = answer(content)
        // Two megabytes at once, then 10 bytes 300 ms later; the server never closes the connection.
        let server = try await ScriptedServer.start(.cut(full, at: [full.count - 10], pause: .milliseconds(300)))
        defer { Task { await server.stop() } }
        let before = ReadBatcher.batches.load(ordering: .relaxed)
        let got = try await fetch(server.url())
        XCTAssertEqual(got.count, content.count)
        XCTAssertEqual(got, content)
        XCTAssertGreaterThan(ReadBatcher.batches.load(ordering: .relaxed), before, "the connection read in batches")
    }

    func testAHeadThatTricklesInIsReadWhileBatching() async throws {
        let content = PatternSource(seed: 46, length: 1000).bytes(count: 1000)
        let full = answer(content)
        let cuts = Array(stride(from: 7, to: full.count - content.count, by: 13))
        let server = try await ScriptedServer.start(.cut(full, at: cuts, pause: .milliseconds(15)))
        defer { Task { await server.stop() } }
        let got = try await fetch(server.url())
        XCTAssertEqual(got, content)
    }

    func testAnAnswerCutAtRandomWithPausesComesWholeWhileBatching() async throws {
        for seed in UInt64(1)...6 {
            var random = SeededGenerator(seed: seed)
            let size = Int.random(in: 1...600_000, using: &random)
            let content = PatternSource(seed: seed, length: Int64(size)).bytes(count: size)
            let script = ScriptedServer.Script.random(answer(content), using: &random, maxPause: 40, closeAfter: seed.isMultiple(of: 2))
            let server = try await ScriptedServer.start(script)
            let got = try await fetch(server.url())
            await server.stop()
            XCTAssertEqual(got.count, content.count, "seed \(seed)")
            XCTAssertTrue(got == content, "seed \(seed)")
        }
    }
}
