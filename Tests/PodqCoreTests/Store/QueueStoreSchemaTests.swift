import PodqSQLite
import PodqTestSupport
import XCTest

@testable import PodqCore

/// The store's files are the users': a new one has the schema every podq before made (GRDB's DSL wrote
/// it until 2026-11-28), and a file an older podq made opens, reads and takes writes as it is.
final class QueueStoreSchemaTests: XCTestCase {
    private var dir: TemporaryDirectory!
    override func setUp() { dir = TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    private static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// `sqlite_master` in order, as Fixtures/schema.sql writes it.
    private func schema(of path: String) throws -> String {
        try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid").map { row in
                let sql: String? = row["sql"]
                return "-- \(row["type"] as String) \(row["name"] as String) on \(row["tbl_name"] as String)\n\(sql ?? "-- (made by SQLite)");\n"
            }.joined()
        }
    }

    func testANewStoreHasTheSchemaEveryPodqMade() throws {
        let path = dir.file("queue.sqlite")
        _ = try QueueStore(path: path)
        let expected = try String(contentsOf: Self.fixtures.appendingPathComponent("schema.sql"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).drop { $0.hasPrefix("-- The schema") || $0.hasPrefix("-- QueueStoreSchemaTests") }
            .joined(separator: "\n")
        XCTAssertEqual(try schema(of: path), expected)
        let (application, migrations) = try DatabaseQueue(path: path).read { db in
            (try Int32.fetchOne(db, sql: "PRAGMA application_id"), try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
        }
        XCTAssertEqual(application, QueueStore.applicationID)
        XCTAssertEqual(migrations.count, 21)
    }

    /// A home an older podq (GRDB's) made: two podcasts, a queued episode, a queued URL, a played
    /// episode, one marked downloaded, a podcast's own rule.
    func testAFileAnOlderPodqMadeOpensReadsAndTakesWrites() throws {
        let path = dir.file("home/queue.sqlite")
        try FileManager.default.createDirectory(atPath: dir.file("home"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent("grdb-made-v20.sqlite").path, toPath: path)
        let before = try schema(of: path)
        let store = try QueueStore(path: path)
        // Opened as it is, but for the migrations since v20: their lines at the end, as a new store has them.
        let fixture = try String(contentsOf: Self.fixtures.appendingPathComponent("schema.sql"), encoding: .utf8)
        let since = try XCTUnwrap(fixture.range(of: "-- table transcript on transcript\n"))
        XCTAssertEqual(try schema(of: path), before + fixture[since.lowerBound...], "a v20 file gets v21's tables and nothing else changes")

        let downloads = try store.queue.downloads()
        XCTAssertEqual(downloads.map(\.id), [1, 3])
        XCTAssertEqual(downloads.map(\.state), [.queued, .queued])
        XCTAssertEqual(downloads.first?.url, "https://cdn.example.org/ep2.mp3")
        XCTAssertEqual(downloads.first?.episodeId, 1)
        XCTAssertEqual(try store.library.podcasts().map(\.title), ["Café Talk", "The Basic Show"])
        XCTAssertEqual(try store.library.podcast(matching: "1").rules.keep, 3)
        XCTAssertNotNil(try store.library.episode(id: 2).episode.playedAt)
        XCTAssertNil(try store.library.episode(id: 1).episode.playedAt)

        let updated = try store.queue.update(id: 3) { $0.title = "renamed ポッド" }
        XCTAssertEqual(try store.queue.download(id: 3), updated)
        let podcast = try store.library.updatePodcast(id: 2) {
            $0.error = nil; $0.rules.keep = 5
        }
        XCTAssertEqual(try store.library.podcast(matching: "2"), podcast)
        XCTAssertEqual(try store.library.setPlayed(episodeIds: [1], played: true), 1)

        let again = try QueueStore(path: path)
        XCTAssertEqual(try again.queue.download(id: 3)?.title, "renamed ポッド")
        XCTAssertEqual(try again.library.podcast(matching: "2").rules.keep, 5)
        XCTAssertEqual(try DatabaseQueue(path: path).read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }, "ok")
    }
}
