import PodqSQLite
import PodqTestSupport
import XCTest

final class DatabaseMigratorTests: XCTestCase {
    private var dir: TemporaryDirectory!
    override func setUp() { dir = TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    private func migrator(_ count: Int, breakingForeignKey: Bool = false) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE parent (id INTEGER PRIMARY KEY)") }
        guard count > 1 else { return migrator }
        migrator.registerMigration("v2") { db in
            try db.execute(sql: "CREATE TABLE child (id INTEGER PRIMARY KEY, parentId INTEGER REFERENCES parent(id))")
            if breakingForeignKey { try db.execute(sql: "INSERT INTO child VALUES (1, 42)") }
        }
        return migrator
    }

    func testEachMigrationRunsOnceAndANewerDatabaseIsTold() throws {
        let db = try DatabaseQueue(path: dir.file("m.sqlite"))
        try migrator(2).migrate(db, upTo: "v1")
        XCTAssertFalse(try db.read { try migrator(2).hasCompletedMigrations($0) })
        try migrator(2).migrate(db)
        try migrator(2).migrate(db)
        XCTAssertEqual(try db.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid") }, ["v1", "v2"])
        XCTAssertTrue(try db.read { try migrator(2).hasCompletedMigrations($0) })
        XCTAssertTrue(try db.read { try migrator(1).hasBeenSuperseded($0) }, "a program that knows only v1 sees a newer database")
        XCTAssertThrowsError(try migrator(1).migrate(db))
    }

    /// A migration that breaks a foreign key is rolled back whole and not recorded.
    func testAMigrationThatBreaksAForeignKeyLeavesNothing() throws {
        let db = try DatabaseQueue(path: dir.file("m.sqlite"))
        XCTAssertThrowsError(try migrator(2, breakingForeignKey: true).migrate(db)) { XCTAssertTrue("\($0)".contains("v2"), "\($0)") }
        let tables = try db.read { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") }
        XCTAssertEqual(tables, ["grdb_migrations", "parent"])
        XCTAssertEqual(try db.read { try Bool.fetchOne($0, sql: "PRAGMA foreign_keys") }, true, "foreign keys are on again")
    }
}
