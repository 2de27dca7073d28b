import Foundation
import PodqSQLite
import PodqTestSupport
import Synchronization
import XCTest

@testable import PodqCore

/// The async twins of the store's synchronous entry points run on threads of the store's own: writes
/// that wait for another program's lock never hold the cooperative pool.
final class StoreTwinsTests: XCTestCase {
    func testWritesWaitingForAnotherProgramsLockLeaveTheCooperativePoolFree() async throws {
        let dir = TemporaryDirectory()
        let store = try QueueStore(path: dir.file("queue.sqlite"))
        let feed = Feed(title: "Show", episodes: [FeedEpisode(guid: "1", title: "One", enclosures: [Enclosure(url: "http://h/1.mp3")])])
        let (_, episodes) = try await store.library.addPodcast(url: "http://h/feed", feed: feed, etag: nil, lastModified: nil, autoQueue: false)
        let other = try DatabaseQueue(path: dir.file("queue.sqlite"))
        try await other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        // The lock's deadline: it goes after 20 s whatever happens (on a queue of its own, not the pool the
        // test watches), so a pool that is held makes this test fail, not hang.
        let released = Atomic<Bool>(false)
        let release = { @Sendable in
            if !released.exchange(true, ordering: .relaxed) { try? other.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") } }
        }
        DispatchQueue(label: "the lock's deadline").asyncAfter(deadline: .now() + 20) { release() }
        // More writes than the pool has threads on any machine CI runs on, each waiting for the lock.
        let id = episodes[0].id
        let writes = (0..<64).map { n in
            Task.detached { try await store.library.setPlayed(episodeIds: [id], played: n % 2 == 0) }
        }
        let waited = await waitUntil(timeout: 10) { (store.lockWait.waiting ?? 0) > 0.5 }
        XCTAssertTrue(waited, "the writes wait for the lock")
        // Work that needs a thread of the cooperative pool gets one while they wait.
        let answer = await Task.detached { released.load(ordering: .relaxed) ? "only after the lock went" : "at once" }.value
        XCTAssertEqual(answer, "at once")
        release()
        for write in writes { _ = try await write.value }  // every one went through once the lock came free
    }
}
