import Foundation
import PodqCore
import PodqHTTP
import PodqTestSupport
import XCTest

/// The speed limit is the downloads' policy, not the client's: every request a queued download makes
/// carries the runner's limiter to its sink, and a feed fetched over the same client carries none.
final class PacingTests: XCTestCase {
    func testDownloadsArePacedAndFeedsAreNot() async throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let media = [UInt8](repeating: 1, count: 50_000)
        let feed = Array(
            """
            <?xml version="1.0"?><rss version="2.0"><channel><title>T</title>
            <item><title>E</title><guid>e</guid><enclosure url="http://media.example/e.mp3" type="audio/mpeg"/></item>
            </channel></rss>
            """.utf8)
        let transport = MemoryTransport { request, _ in
            request.url.path.hasSuffix(".xml") ? .ok(feed, headers: [("Content-Type", "application/rss+xml")]) : .ok(media)
        }
        let store = try QueueStore(path: dir.file("q.sqlite"))
        _ = try await store.queue.add(url: "http://media.example/e.mp3", title: "e", destination: dir.file("e.mp3"))
        let limiter = RateLimiter(bytesPerSecond: 10_000_000)
        let runner = QueueRunner(store: store, settings: Settings(), transport: transport, pacing: limiter)
        let summary = try await runner.run()
        XCTAssertEqual(summary.completed, 1)
        let fetched = try await FeedFetcher(transport: transport).fetch(URL(string: "http://feeds.example/f.xml")!)
        if case .fetched(let file, _, _, _, _, _) = fetched { unlink(file) }

        let requests = transport.requests.values
        let downloads = requests.filter { $0.url.path.hasSuffix(".mp3") }, feeds = requests.filter { $0.url.path.hasSuffix(".xml") }
        XCTAssertFalse(downloads.isEmpty)
        XCTAssertEqual(feeds.count, 1)
        XCTAssertTrue(downloads.allSatisfy { $0.pacing === limiter }, "every request of the download is paced")
        XCTAssertNil(feeds[0].pacing, "a feed is not paced")
    }
}
