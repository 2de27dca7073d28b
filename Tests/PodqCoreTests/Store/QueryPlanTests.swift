import PodqSQLite
import PodqTestSupport
import XCTest

@testable import PodqCore

/// No action waits on a table scan (issue 30, point 1), checked against the schema itself: every
/// foreign key has an index led by its child column (SQLite looks the children up on each parent row
/// deleted or changed, and scans the table without one), and the statements run once per row use an
/// index, as SQLite's EXPLAIN QUERY PLAN says, over a store of real size.
final class QueryPlanTests: XCTestCase {
    private var dir: TemporaryDirectory!
    private var store: QueueStore!

    override func setUp() async throws {
        dir = TemporaryDirectory("podq-plan")
        store = try QueueStore(path: dir.file("queue.sqlite"))
        // 20 podcasts of 200 episodes, 400 of them queued: enough rows for the planner to prefer an index.
        for p in 0..<20 {
            let episodes = (0..<200).map { FeedEpisode(guid: "g\(p)-\($0)", title: "E\($0)", enclosures: [Enclosure(url: "http://h/\(p)/\($0).mp3")]) }
            let (_, added) = try await store.library.addPodcast(
                url: "http://h/\(p).xml", feed: Feed(title: "P\(p)", episodes: episodes), etag: nil, lastModified: nil,
                autoQueue: false)
            _ = try await store.queue.add(
                added.prefix(20).map {
                    NewDownload(
                        url: $0.url, title: $0.title, podcast: "P\(p)", destination: dir.file("\(p)-\($0.id).mp3"),
                        episodeId: $0.id)
                })
        }
    }

    override func tearDown() { dir.remove() }

    private func database() throws -> DatabaseQueue { try DatabaseQueue(path: dir.file("queue.sqlite")) }

    func testEveryForeignKeyHasAnIndexLedByItsColumn() throws {
        try database().read { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            var checked = 0
            for table in tables {
                for key in try Row.fetchAll(db, sql: "SELECT * FROM pragma_foreign_key_list(?)", arguments: [table]) {
                    let column: String = key["from"]
                    let indexes = try String.fetchAll(db, sql: "SELECT name FROM pragma_index_list(?)", arguments: [table])
                    // The table's INTEGER PRIMARY KEY is its rowid: the table is ordered by it.
                    let rowid =
                        try Row.fetchOne(db, sql: "SELECT type, pk FROM pragma_table_info(?) WHERE name = ?", arguments: [table, column])
                        .map { ($0["type"] as String).uppercased() == "INTEGER" && ($0["pk"] as Int) == 1 } ?? false
                    let led =
                        try rowid
                        || indexes.contains { index in
                            try String.fetchOne(db, sql: "SELECT name FROM pragma_index_info(?) WHERE seqno = 0", arguments: [index]) == column
                        }
                    XCTAssertTrue(
                        led, "\(table).\(column) references \(key["table"] as String) with no index led by it: each change of a parent row scans \(table)")
                    checked += 1
                }
            }
            XCTAssertGreaterThanOrEqual(checked, 2, "the foreign keys were found")
        }
    }

    /// The statements the runner, the TUI and the commands run for one row at a time.
    func testPerRowStatementsUseAnIndex() throws {
        let statements = [
            "DELETE FROM download WHERE id = 5",
            "UPDATE episode SET downloadId = NULL WHERE downloadId = 5",
            "SELECT * FROM episode WHERE downloadId = 5",
            "SELECT * FROM episode WHERE podcastId = 3 AND guid = 'g3-7'",
            "SELECT * FROM episode WHERE podcastId = 3 AND enclosureKey = 'x'",
            "SELECT * FROM podcast WHERE url = 'http://h/3.xml'",
            "SELECT * FROM download WHERE id = 5",
            "SELECT * FROM ledger WHERE enclosureKey = 'x' AND guid = '' AND feedURL = ''",
            "SELECT * FROM ledger WHERE guid = 'g' AND feedURL = 'f'",
            "SELECT episode.*, podcast.title FROM episode JOIN podcast ON podcast.id = episode.podcastId WHERE episode.id = 9",
        ]
        try database().read { db in
            for sql in statements {
                let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }
                for step in plan where step.hasPrefix("SCAN ") {
                    XCTFail("\(sql) scans a table: \(plan)")
                }
            }
        }
    }

    /// `podq episodes` reads every episode (or a podcast's), once: its only scan is of the episodes
    /// listed; the podcast, download and ledger of each are looked up by index, and the show notes'
    /// words through the full-text index.
    func testTheListingScansOnlyTheEpisodesItLists() throws {
        try database().read { db in
            for onePodcast in [false, true] {
                for (notes, onlyNew) in [(false, false), (true, false), (false, true), (true, true)] {
                    var sql = LibraryStore.listingStatement(onePodcast: onePodcast, notes: notes, onlyNew: onlyNew, onlyUpdated: onlyNew)
                    if notes { sql = sql.replacingOccurrences(of: "MATCH ?", with: "MATCH '\"e\"*'") }
                    if onePodcast { sql = sql.replacingOccurrences(of: "episode.podcastId = ?", with: "episode.podcastId = 3") }
                    let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }
                    // The table scanned, whatever index the scan walks ("SCAN episode USING INDEX episode_key").
                    let scans = plan.filter { $0.hasPrefix("SCAN ") && !$0.hasPrefix("SCAN episode_notes VIRTUAL TABLE") }
                        .map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
                    XCTAssertEqual(scans, onePodcast ? [] : ["SCAN episode"], "\(plan)")
                }
            }
        }
    }

    /// What the missing index cost: clearing downloads looks up each one's episode.
    func testClearingManyDownloadsTouchesOnlyTheirEpisodes() throws {
        let ids = try store.queue.downloads().compactMap(\.id).prefix(100)
        for id in ids { try store.queue.remove(id: id) }
        let left = try database().read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM episode WHERE downloadId IS NOT NULL") }
        XCTAssertEqual(left, 300, "each removed download's episode lost its link, no other")
    }
}
