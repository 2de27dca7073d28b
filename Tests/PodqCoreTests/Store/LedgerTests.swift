import Foundation
import PodqSQLite
import PodqTestSupport
import XCTest

@testable import PodqCore

/// The ledger on a real database: filled from the downloads completed before it existed, written by
/// its trigger whoever completes a row, and matched by enclosure or by GUID within a feed.
final class LedgerTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUp() { dir = TemporaryDirectory("podq-ledger") }
    override func tearDown() { dir.remove() }

    private func feed(_ title: String, _ items: [(guid: String, url: String)]) -> Feed {
        Feed(title: title, episodes: items.map { FeedEpisode(guid: $0.guid, title: $0.guid, enclosures: [Enclosure(url: $0.url)]) })
    }

    func testTheMigrationFillsTheLedgerFromCompletedDownloads() throws {
        let path = dir.file("queue.sqlite")
        do {
            let db = try DatabaseQueue(path: path)
            try QueueStore.migrator.migrate(db, upTo: "v10: integrity")
            try db.write { db in
                try db.execute(sql: "INSERT INTO podcast (id, title, url, autoQueue, createdAt) VALUES (1, 'Old', 'http://h/old.xml', 0, 0)")
                for (id, state) in [(1, "completed"), (2, "failed")] {
                    try db.execute(
                        sql: """
                            INSERT INTO download (id, position, url, title, destination, state, createdAt, updatedAt, completedAt, episodeId)
                            VALUES (?, ?, ?, 't', '/d/x', ?, 0, 0, 5, ?)
                            """, arguments: [id, id, "http://h/\(id).mp3", state, id])
                    try db.execute(
                        sql: """
                            INSERT INTO episode (id, podcastId, guid, enclosureKey, title, url, firstSeenAt, downloadId)
                            VALUES (?, 1, ?, ?, 't', ?, 0, ?)
                            """, arguments: [id, "g\(id)", EpisodeRecord.key(for: "http://h/\(id).mp3"), "http://h/\(id).mp3", id])
                }
            }
        }
        let store = try QueueStore(path: path)
        XCTAssertEqual(try store.library.episodeIdsInLedger(), [1], "the completed one only")
    }

    func testTheTriggerRecordsACompletionAndMatchesByEnclosureOrByGUIDInItsFeed() async throws {
        let store = try QueueStore(path: dir.file("queue.sqlite"))
        let (_, a) = try await store.library.addPodcast(
            url: "http://h/a.xml", feed: feed("A", [("1", "http://cdn/a1.mp3"), ("2", "http://cdn/a2.mp3")]),
            etag: nil, lastModified: nil, autoQueue: false)
        let row = try await store.queue.add([NewDownload(url: a[0].url, title: "a1", destination: dir.file("a1.mp3"), episodeId: a[0].id)])[0]
        let episodeIdsInLedger2 = try await store.library.episodeIdsInLedger()
        XCTAssertEqual(episodeIdsInLedger2, [])
        _ = try await store.queue.modify(id: row.id) { r in
            var done = r
            done.state = .completed
            done.completedAt = 100
            return done
        }
        let episodeIdsInLedger3 = try await store.library.episodeIdsInLedger()
        XCTAssertEqual(episodeIdsInLedger3, [a[0].id])
        // Its row and file gone, the ledger keeps it.
        try await store.queue.remove(id: row.id)
        let episodeIdsInLedger4 = try await store.library.episodeIdsInLedger()
        XCTAssertEqual(episodeIdsInLedger4, [a[0].id])
        // Another feed: the same file is in the ledger; the same GUID "1" (another show's numbering) is not.
        let (_, b) = try await store.library.addPodcast(
            url: "http://h/b.xml", feed: feed("B", [("9", "http://cdn/a1.mp3?utm_source=x"), ("1", "http://cdn/b1.mp3")]),
            etag: nil, lastModified: nil, autoQueue: false)
        let notInLedger2 = try await store.library.notInLedger(b.compactMap(\.id))
        XCTAssertEqual(notInLedger2, [b[1].id], "enclosure matched across feeds, tracking parameter aside")
        // The same feed republishing GUID 1 with a new file: matched by its GUID.
        let more = try await store.library.refreshPodcast(
            id: a[0].podcastId, url: "http://h/a.xml",
            feed: feed("A", [("1", "http://new-cdn/a1.mp3"), ("3", "http://cdn/a3.mp3")]), etag: nil, lastModified: nil)
        XCTAssertEqual(more.map(\.guid), ["3"])
        let notInLedger3 = try await store.library.notInLedger([a[0].id, a[1].id])
        XCTAssertEqual(notInLedger3, [a[1].id])
        let markDownloaded2 = try await store.library.markDownloaded(episodeIds: [a[0].id, a[1].id])
        XCTAssertEqual(markDownloaded2, 1, "one was in it already")
        let notInLedger4 = try await store.library.notInLedger([a[1].id])
        XCTAssertEqual(notInLedger4, [])
    }
}
