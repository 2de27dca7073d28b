import PodqSQLite
import PodqTestSupport
import XCTest

/// Flat Codable records: each property a column, nil written as NULL, an enum by its raw value.
final class RecordTests: XCTestCase {
    private var dir: TemporaryDirectory!
    override func setUp() { dir = TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    private enum Kind: String, Codable { case audio, video }

    private struct Item: Codable, Equatable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "item"
        var id: Int64
        var title: String
        var size: Int?
        var score: Double?
        var done: Bool
        var kind: Kind
        var note: String? = nil
    }

    private func database() throws -> DatabaseQueue {
        let db = try DatabaseQueue(path: dir.file("r.sqlite"))
        try db.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE item (id INTEGER PRIMARY KEY, title TEXT NOT NULL, size INTEGER, score DOUBLE, done BOOLEAN NOT NULL,
                                       kind TEXT NOT NULL, note TEXT);
                    CREATE TABLE writes (column TEXT);
                    CREATE TRIGGER title_written AFTER UPDATE OF title ON item BEGIN INSERT INTO writes VALUES ('title'); END;
                    CREATE TRIGGER size_written AFTER UPDATE OF size ON item BEGIN INSERT INTO writes VALUES ('size'); END;
                    """)
        }
        return db
    }

    func testARecordGoesInAndComesBackAndNilClearsAColumn() throws {
        let db = try database()
        var item = Item(id: 4, title: "ポッド 'x'", size: 12, score: 0.5, done: true, kind: .video, note: "n")
        try db.write { try item.insert($0) }
        XCTAssertEqual(try db.read { try Item.fetchOne($0, key: 4) }, item)
        XCTAssertEqual(try db.read { try String.fetchOne($0, sql: "SELECT kind FROM item") }, "video")
        item.size = nil
        item.note = nil
        try db.write { try item.update($0) }
        XCTAssertEqual(try db.read { try Item.fetchAll($0) }, [item], "an update writes nil as NULL")
        XCTAssertEqual(try db.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item WHERE size IS NULL AND note IS NULL") }, 1)
        XCTAssertThrowsError(try db.write { try Item(id: 99, title: "", done: false, kind: .audio).update($0) }) {
            XCTAssertEqual(($0 as? DatabaseError)?.resultCode, .SQLITE_NOTFOUND)
        }
        XCTAssertTrue(try db.write { try Item.deleteOne($0, key: 4) })
        XCTAssertFalse(try db.write { try Item.deleteOne($0, key: 4) })
    }

    func testUpdateChangesWritesOnlyWhatChanged() throws {
        let db = try database()
        let before = Item(id: 1, title: "a", size: 1, done: false, kind: .audio)
        try db.write { try before.insert($0) }
        XCTAssertFalse(try db.write { try before.updateChanges($0, from: before) }, "nothing changed: nothing written")
        var after = before
        after.size = nil
        XCTAssertTrue(try db.write { try after.updateChanges($0, from: before) })
        XCTAssertEqual(try db.read { try String.fetchAll($0, sql: "SELECT column FROM writes") }, ["size"])
        XCTAssertEqual(try db.read { try Item.fetchOne($0, key: 1) }, after)
    }

    func testARowOfAnotherKindIsAnErrorNotACrash() throws {
        let db = try database()
        try db.write { try $0.execute(sql: "INSERT INTO item VALUES (1, 't', 'big', NULL, 0, 'audio', NULL), (2, 't', 1, NULL, 0, 'film', NULL)") }
        XCTAssertThrowsError(try db.read { try Item.fetchOne($0, key: 1) }) { XCTAssertTrue("\($0)".contains("size holds 'big'"), "\($0)") }
        XCTAssertThrowsError(try db.read { try Item.fetchOne($0, key: 2) })
    }
}
