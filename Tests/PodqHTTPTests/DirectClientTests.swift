import NIOCore
import NIOPosix
import PodqCore
import PodqTestSupport
import Synchronization
import XCTest

@testable import PodqHTTP

/// What podq's own connection asks for and where: the request target keeps the URL's own encoding
/// (a signed CDN link must not be re-encoded), the Host header names the port only when the URL does,
/// an IPv6 address is bracketed in the header and bare for the connection, and an address is never
/// sent as a TLS server name. Then the connection itself, over loopback to another 127.x host.
final class DirectClientTests: XCTestCase {
    private func target(_ text: String) throws -> DirectClient.Target {
        try XCTUnwrap(DirectClient.target(try XCTUnwrap(URL(string: text))))
    }

    func testTheTargetOfEachShapeOfURL() throws {
        XCTAssertEqual(
            try target("https://cdn.example.com/a%20b/ep.mp3?sig=a%2Fb%3D&x=1#frag"),
            .init(
                host: "cdn.example.com", port: 443, secure: true, hostHeader: "cdn.example.com",
                path: "/a%20b/ep.mp3?sig=a%2Fb%3D&x=1", serverName: "cdn.example.com"))
        XCTAssertEqual(
            try target("http://127.0.0.2:8080"),
            .init(host: "127.0.0.2", port: 8080, secure: false, hostHeader: "127.0.0.2:8080", path: "/", serverName: nil))
        XCTAssertEqual(
            try target("https://[::1]:8443/e.mp3?"),
            .init(host: "::1", port: 8443, secure: true, hostHeader: "[::1]:8443", path: "/e.mp3?", serverName: nil))
        XCTAssertEqual(try target("HTTP://Example.COM/x").port, 80)
        XCTAssertNil(DirectClient.target(URL(string: "file:///tmp/x")!))
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

    /// A server that answers every connection with `reply` and closes: what no HTTP server library sends.
    private func rawServer(_ reply: [UInt8]) throws -> (port: Int, stop: @Sendable () -> Void) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard fd >= 0, bound else { throw POSIXError(.EADDRINUSE) }
        let port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread {
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { return }
                var request = [UInt8](repeating: 0, count: 65536)
                _ = read(client, &request, request.count)
                _ = reply.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                close(client)
            }
        }
        return (
            port,
            {
                shutdown(fd, Int32(SHUT_RDWR)); close(fd)
            }
        )
    }

    func testAnAnswerThatIsNotHTTPIsAFailureToConnectInWords() async throws {
        let server = try rawServer(Array("\u{0}\u{1}garbage, not a status line\r\n\r\n".utf8))
        defer { server.stop() }
        let transport = AsyncHTTPTransport()
        do {
            _ = try await transport.send(TransportRequest(url: URL(string: "http://127.0.0.1:\(server.port)/ep.mp3")!))
            XCTFail("not HTTP")
        } catch let error as DownloadError {
            XCTAssertEqual(error, .connectionFailed("the server's answer is not HTTP"))
        }
        await transport.shutdown()
    }

    /// Bytes after a whole response (a server that sends more than its Content-Length, then closes)
    /// are not the file's: the body is what was announced, as curl keeps it ("excess found").
    func testBytesPastTheAnnouncedLengthAreNotTheBodys() async throws {
        let body = Array("ID3".utf8) + [UInt8](repeating: 7, count: 997)
        let server = try rawServer(
            Array("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nContent-Type: audio/mpeg\r\n\r\n".utf8)
                + body + [UInt8](repeating: 9, count: 4000))
        defer { server.stop() }
        let transport = AsyncHTTPTransport()
        let response = try await transport.send(TransportRequest(url: URL(string: "http://127.0.0.1:\(server.port)/ep.mp3")!))
        var bytes: [UInt8] = []
        for try await chunk in response.body { bytes += chunk.readableBytesView }
        XCTAssertEqual(bytes, body)
        await transport.shutdown()
    }

    /// Downloads started together spread over every event loop (a core each): a request's deadline and
    /// its connection share one turn of the round robin. Two turns put every connection on the same
    /// loop of two, and fifty downloads on one core.
    func testDownloadsStartedTogetherSpreadOverTheEventLoops() async throws {
        // A server on a thread of its own: the in-process server's accepts would take turns of the
        // same round robin.
        let body = [UInt8](repeating: 5, count: 20_000)
        let server = try rawServer(Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body)
        defer { server.stop() }
        let transport = AsyncHTTPTransport()
        let loopCount = Array(MultiThreadedEventLoopGroup.singleton.makeIterator()).count
        let count = 2 * loopCount
        var responses: [TransportResponse] = []
        for index in 0..<count {
            responses.append(try await transport.send(TransportRequest(url: URL(string: "http://127.0.0.1:\(server.port)/e\(index).mp3")!)))
        }
        let loops = Mutex<[Int: ObjectIdentifier]>([:])
        for (index, response) in responses.enumerated() {
            try await response.body.forEach { _ in
                guard let loop = MultiThreadedEventLoopGroup.currentEventLoop else { return }
                loops.withLock { $0[index] = ObjectIdentifier(loop as AnyObject) }
            }
        }
        let seen = loops.withLock { $0 }
        XCTAssertEqual(seen.count, count, "every body was read on an event loop")
        XCTAssertEqual(Set(seen.values).count, loopCount, "\(count) downloads on \(Set(seen.values).count) of \(loopCount) loops")
        await transport.shutdown()
    }

    /// A refused connection closes its channel before the connect's failure is known: every one is told
    /// as refused (the retry policy treats it so), never as "the server closed the connection", however
    /// the two events fall on the loop. One in a dozen fell the wrong way before the connect's outcome
    /// decided who tells it.
    func testEveryRefusedConnectionIsToldAsRefused() async throws {
        let refused = RefusedPort()
        var told: [String: Int] = [:]
        for index in 0..<300 {
            let transport = AsyncHTTPTransport(connectTimeout: .milliseconds(500))
            defer { Task { await transport.shutdown() } }
            do {
                _ = try await transport.send(TransportRequest(url: URL(string: refused.url("/e\(index).mp3"))!))
                told["answered", default: 0] += 1
            } catch {
                told[String(describing: error), default: 0] += 1
            }
        }
        XCTAssertEqual(told, [String(describing: DownloadError.connectionRefused(address: "127.0.0.1:\(refused.port)")): 300])
        withExtendedLifetime(refused) {}
    }
}
