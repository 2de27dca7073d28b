@testable import PodqCore
import PodqTestSupport
import XCTest

/// What podq's own connection asks for and where: the request target keeps the URL's own encoding
/// (a signed CDN link must not be re-encoded), the Host header names the port only when the URL does,
/// an IPv6 address is bracketed in the header and bare for the connection, and an address is never
/// sent as a TLS server name. Then the connection itself, over loopback to another 127.x host.
final class DirectConnectionTests: XCTestCase {
    private func target(_ text: String) throws -> StreamingDelegate.Target {
        try XCTUnwrap(StreamingDelegate.target(try XCTUnwrap(URL(string: text))))
    }

    func testTheTargetOfEachShapeOfURL() throws {
        XCTAssertEqual(try target("https://cdn.example.com/a%20b/ep.mp3?sig=a%2Fb%3D&x=1#frag"),
                       .init(host: "cdn.example.com", port: 443, secure: true, hostHeader: "cdn.example.com",
                             path: "/a%20b/ep.mp3?sig=a%2Fb%3D&x=1", serverName: "cdn.example.com"))
        XCTAssertEqual(try target("http://127.0.0.2:8080"),
                       .init(host: "127.0.0.2", port: 8080, secure: false, hostHeader: "127.0.0.2:8080", path: "/", serverName: nil))
        XCTAssertEqual(try target("https://[::1]:8443/e.mp3?"),
                       .init(host: "::1", port: 8443, secure: true, hostHeader: "[::1]:8443", path: "/e.mp3?", serverName: nil))
        XCTAssertEqual(try target("HTTP://Example.COM/x").port, 80)
        XCTAssertNil(StreamingDelegate.target(URL(string: "file:///tmp/x")!))
    }

    func testAFileFromAnotherLoopbackHostComesWholeOverOneConnection() async throws {
        let server = try await TestServer.start(host: "127.0.0.2")
        defer { Task { await server.stop() } }
        let transport = AsyncHTTPTransport()
        let url = server.dataURL(size: 3_000_000, seed: 9, name: "ep.mp3")
        XCTAssertEqual(url.host, "127.0.0.2")
        let response = try await transport.send(TransportRequest(url: url))
        XCTAssertEqual(response.status, 200)
        var bytes: [UInt8] = []
        for try await chunk in response.body { bytes += chunk.readableBytesView }
        XCTAssertEqual(bytes, PatternSource(seed: 9, length: 3_000_000).bytes(count: 3_000_000))
        let request = try XCTUnwrap(server.log.requests.first)
        XCTAssertEqual(request.header("Host"), "127.0.0.2:\(url.port!)")
        XCTAssertEqual(request.header("Connection"), "close", "one request per connection: no pool to leave half read")
        await transport.shutdown()
    }
}
