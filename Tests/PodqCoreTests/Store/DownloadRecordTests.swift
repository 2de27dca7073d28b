import PodqSQLite
import PodqServer
import PodqTestSupport
import XCTest

@testable import PodqCore

/// The runner reads rows by position (``DownloadRecord/init(ordered:)``), everything else by name:
/// both give the same record, and the list of columns is the table's.
final class DownloadRecordTests: XCTestCase {
    private var dir: TemporaryDirectory!
    override func setUp() { dir = TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    func testTheColumnsAreTheTables() throws {
        let store = try QueueStore(path: dir.file("q.sqlite"))
        let names = try store.pool.read { db in try Row.fetchAll(db, sql: "PRAGMA table_info(download)").map { $0["name"] as String } }
        XCTAssertEqual(Set(names), Set(DownloadRecord.columns), "a new column of download must be read: add it to DownloadRecord.columns")
        XCTAssertEqual(names.count, DownloadRecord.columns.count)
    }

    func testByPositionAndByNameReadTheSameRecords() throws {
        let store = try QueueStore(path: dir.file("q.sqlite"))
        var random = SeededGenerator(seed: 45)
        func maybe<T>(_ value: T) -> T? { Bool.random(using: &random) ? value : nil }
        for i in 0..<60 {
            let added = try store.queue.add(url: "http://h/\(i).mp3", title: "t\(i) ポッド", destination: "/d/\(i).mp3")
            let saved = try store.queue.update(id: added.id) { r in
                r.state = [.queued, .downloading, .paused, .failed, .completed, .cancelled][i % 6]
                r.podcast = maybe("Show")
                r.bytesReceived = Int64.random(in: 0...1 << 40, using: &random)
                r.bytesExpected = maybe(Int64.random(in: 0...1 << 40, using: &random))
                r.validators = maybe(ResourceValidators(strongETag: "\"e\(i)\"", lastModified: maybe("d"), totalLength: maybe(10), finalURL: maybe("http://f")))
                r.attempts = Int.random(in: 0...9, using: &random)
                r.lastError = maybe("503")
                r.retryAt = maybe(Double(i) + 0.5)
                r.completedAt = maybe(1_790_000_000.25)
                r.committedFile = maybe(("/d/\(i).mp3", FileIdentity(device: UInt64.max - 1, inode: 7, size: 9, modified: 3, born: maybe(2))))
                r.segments = maybe("[]")
                r.integrity = maybe(Integrity(checksum: "xxh3:00", sha256: maybe("ab"), verifiedBy: "length", problem: maybe("p")))
                r.replaces = maybe(3)
            }
            XCTAssertEqual(try store.queue.download(id: added.id), saved, "every column written (DownloadRecord.save) and read back")
        }
        try store.pool.read { db in
            let byName = try DownloadRecord.fetchAll(db, sql: "SELECT * FROM download ORDER BY position, id")
            XCTAssertEqual(try DownloadRecord.all(db), byName)
            for record in byName { XCTAssertEqual(try DownloadRecord.row(db, id: record.id), record) }
            XCTAssertNil(try DownloadRecord.row(db, id: 10_000))
        }
    }

    func testSavingARowThatIsGoneSaysSo() throws {
        let store = try QueueStore(path: dir.file("q.sqlite"))
        let added = try store.queue.add(url: "http://h/a.mp3", title: "a", destination: "/d/a.mp3")
        try store.queue.remove(id: added.id)
        XCTAssertThrowsError(try store.pool.write { db in try added.save(db) }) { XCTAssertEqual($0 as? StoreError, .noSuchDownload(added.id)) }
    }

    /// A value of the wrong kind (another program's write) is an error naming the column, not a crash
    /// and not a silent 0, read alone or in the list; an unknown state is the error that says so.
    func testAValueOfTheWrongKindIsAnErrorNotACrash() throws {
        let store = try QueueStore(path: dir.file("q.sqlite"))
        let a = try store.queue.add(url: "http://h/a.mp3", title: "a", destination: "/d/a.mp3")
        let b = try store.queue.add(url: "http://h/b.mp3", title: "b", destination: "/d/b.mp3")
        try store.pool.write { db in
            try db.execute(sql: "UPDATE download SET bytesReceived = 'many' WHERE id = ?", arguments: [a.id])
            try db.execute(sql: "UPDATE download SET state = 'bogus' WHERE id = ?", arguments: [b.id])
        }
        XCTAssertThrowsError(try store.pool.read { db in try DownloadRecord.row(db, id: a.id) }) { error in
            XCTAssertTrue("\(error)".contains("bytesReceived") && "\(error)".contains("many"), "\(error)")
        }
        XCTAssertThrowsError(try store.pool.read { db in try DownloadRecord.all(db) }) { error in
            XCTAssertTrue("\(error)".contains("bytesReceived") && "\(error)".contains("many"), "\(error)")
        }
        XCTAssertThrowsError(try store.pool.read { db in try DownloadRecord.row(db, id: b.id) }) { error in
            XCTAssertEqual(error as? StoreError, .unknownState(id: b.id, value: "bogus"))
        }
    }
}
