import PodqBase
import PodqCore
import PodqHTTP
import PodqServer
import PodqTestAssertions
import PodqTestSupport
import Synchronization
import XCTest

final class HTTPServerTests: XCTestCase {
    func testServesRecordsAndCountsInFlight() async throws {
        let server = try await HTTPServer.start { request in
            var response = ServerResponse.text(200, String(repeating: "x", count: 1000))
            response.bytesPerSecond = request.query["slow"] != nil ? 5000 : nil
            return response
        }
        let transport = AsyncHTTPTransport()
        async let a = transport.send(TransportRequest(url: server.url("/a?slow=1"), headers: ["X-Test": "1"]))
        async let b = transport.send(TransportRequest(url: server.url("/b?slow=1")))
        for response in try await [a, b] {
            XCTAssertEqual(response.status, 200)
            var n = 0
            for try await chunk in response.body { n += chunk.readableBytes }
            XCTAssertEqual(n, 1000)
        }
        XCTAssertEqual(server.log.requests.count, 2)
        XCTAssertEqual(server.log.maxInFlight, 2)
        await expect(timeout: 1, every: 10) { server.log.currentInFlight == 0 }
        XCTAssertEqual(server.log.currentInFlight, 0)
        XCTAssertEqual(server.log.requests.first { $0.path == "/a" }?.header("x-test"), "1")
        XCTAssertTrue(server.log.outcomes.values.allSatisfy(\.completed))
        await transport.shutdown()
        await server.stop()
    }

    func testStopClosesOpenConnections() async throws {
        let server = try await HTTPServer.start { _ in
            var response = ServerResponse.text(200, String(repeating: "x", count: 100_000))
            response.bytesPerSecond = 1000
            return response
        }
        let transport = AsyncHTTPTransport()
        let response = try await transport.send(TransportRequest(url: server.url("/slow")))
        await server.stop()
        do {
            for try await _ in response.body {}
            XCTFail("the body should break off")
        } catch {
            XCTAssertTrue(error is DownloadError, "\(error)")
        }
        await transport.shutdown()
    }

    func testStopEndsAtItsDeadlineWhenAConnectionNeverEnds() async throws {
        // A route stuck in an await that neither cancelling nor closing ends: stop still returns.
        let entered = Atomic<Bool>(false)
        let server = try await HTTPServer.start { _ in
            entered.store(true, ordering: .relaxed)
            await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
            return .text(200, "never")
        }
        let transport = AsyncHTTPTransport()
        let request = Task { try await transport.send(TransportRequest(url: server.url("/stuck"))) }
        await expect(timeout: 10, every: 10) { entered.load(ordering: .relaxed) }
        XCTAssertTrue(entered.load(ordering: .relaxed))
        let returned = await BoundedWait.run(within: .seconds(120)) { await server.stop(within: .seconds(1)) }
        XCTAssertTrue(returned, "stop waited for a connection that never ends")
        _ = try? await request.value
        await transport.shutdown()
    }
}
