import PodqTestAssertions
import PodqTestSupport
import XCTest

final class ParseCommandTests: XCTestCase {
    static let fixtures = Repository.root.appendingPathComponent("Tests/PodqCoreTests/Fixtures/feeds")

    func testParseAURLPrintsTheDocumentedJSON() async throws {
        let server = try await TestServer.start()
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let feed = try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent("rss-relative-urls.xml")))
        server.serve(feed, as: "pods/feed.xml")
        let cli = PodqInvocation(home: dir.file("home"), directory: dir.path)
        // Through a redirect: relative URLs resolve against the final URL.
        let (exit, out, err) = try await cli.run(["parse", "--json", server.url("/redirect/2?to=%2Fstatic%2Fpods%2Ffeed.xml").absoluteString])
        XCTAssertEqual(exit.code, 0, err)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
        XCTAssertEqual(Set(json.keys), ["title", "link", "description", "repairs", "episodes"])
        XCTAssertEqual(json["title"] as? String, "Relative")
        XCTAssertTrue(json["description"] is NSNull)
        let episodes = try XCTUnwrap(json["episodes"] as? [[String: Any]])
        XCTAssertEqual(Set(episodes[0].keys), ["guid", "title", "link", "published", "duration", "enclosures"])
        let enclosure = try XCTUnwrap((episodes[0]["enclosures"] as? [[String: Any]])?.first)
        XCTAssertEqual(Set(enclosure.keys), ["url", "type", "length"])
        XCTAssertEqual(enclosure["url"] as? String, server.url("/static/pods/media/ep%201.mp3").absoluteString)
        XCTAssertTrue(episodes[0]["published"] is NSNull)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("home/queue.sqlite")), "parse stores nothing")
        await server.stop()
    }

    func testBadFeedsExitWith2AndSayWhy() async throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let cli = PodqInvocation(home: dir.file("home"), directory: dir.path)
        let (exit, _, err) = try await cli.run(["parse", Self.fixtures.appendingPathComponent("malformed-no-channel.xml").path])
        XCTAssertEqual(exit.code, 2)
        XCTAssertTrue(err.contains("line 3, column"), err)
        let (missing, _, err2) = try await cli.run(["parse", "/nonexistent.xml"])
        XCTAssertEqual(missing.code, 2)
        XCTAssertTrue(err2.contains("/nonexistent.xml"), err2)
    }

    func testAFeedLargerThanTheCapIsRefusedWhileStreaming() async throws {
        let server = try await TestServer.start()
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let cli = PodqInvocation(home: dir.file("home"), directory: dir.path)
        let (exit, _, err) = try await cli.run([
            "parse", server.dataURL(size: 400_000_000, name: "huge.xml", ["chunked": "1", "type": "application/rss+xml"]).absoluteString,
        ])
        XCTAssertEqual(exit.code, 2)
        XCTAssertTrue(err.contains("larger than 50 MB"), err)
        await expect(timeout: 2, every: 10) { !server.log.outcomes.isEmpty }
        XCTAssertGreaterThan(server.log.totalBytesSent, 50_000_000)
        XCTAssertLessThan(server.log.totalBytesSent, 200_000_000, "the fetch stopped soon after the cap, not at the end")
        await server.stop()
    }
}

extension ParseCommandTests {
    /// Mangled fixtures through the real binary: it never dies on a signal, and refuses with exit 2
    /// and a message.
    func testMangledFeedsNeverCrashTheCLI() async throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let cli = PodqInvocation(home: dir.file("home"), directory: dir.path)
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path).sorted()
        var state: UInt64 = 77
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        var refused = 0
        for (n, name) in names.enumerated() {
            var bytes = try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent(name)))
            for _ in 0..<4 { bytes[next() % bytes.count] = UInt8(next() % 256) }
            if n % 3 == 0 { bytes = Array(bytes.prefix(bytes.count / 2)) }
            let path = dir.file("mangled-\(n).xml")
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            let (exit, out, err) = try await cli.run(["parse", "--json", path])
            XCTAssertNil(exit.signal, "\(name): killed by signal \(exit.signal ?? 0)")
            XCTAssertTrue(exit.code == 0 || exit.code == 2, "\(name): exit \(String(describing: exit.code))")
            if exit.code == 2 {
                refused += 1
                XCTAssertTrue(err.hasPrefix("podq: "), err)
            } else {
                XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(out.utf8)), "\(name): valid JSON")
            }
        }
        XCTAssertGreaterThan(refused, 0)
    }
}
