import PodqSQLite
import PodqServer
import PodqTestSupport
import XCTest

/// Every value goes in and comes back as it was, and a conversion never invents a value.
final class DatabaseValueTests: XCTestCase {
    private var dir: TemporaryDirectory!
    override func setUp() { dir = TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    private func randomValue(_ random: inout SeededGenerator) -> DatabaseValue {
        switch Int.random(in: 0..<5, using: &random) {
        case 0: return .null
        case 1: return .integer([Int64.min, Int64.max, 0, -1, Int64.random(in: .min ... .max, using: &random)].randomElement(using: &random)!)
        case 2: return .real([0.5, -0.0, 1e308, .leastNonzeroMagnitude, Double.random(in: -1e12...1e12, using: &random)].randomElement(using: &random)!)
        case 3:
            let pieces = ["", "a", "é", "ポッド", "\u{0}", "'", "\"", "%", "😀", "\r\n", " "]
            return .text((0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined())
        default: return .blob((0..<Int.random(in: 0...40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        }
    }

    /// A column without affinity keeps each storage class: what is bound is what is read, the empty text
    /// (not NULL) and a NUL inside a text included.
    func testEveryValueRoundTrips() throws {
        let db = try DatabaseQueue(path: dir.file("v.sqlite"))
        try db.write { try $0.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, v)") }
        var random = SeededGenerator(seed: 11)
        let values = (0..<800).map { _ in randomValue(&random) }
        try db.write { db in
            for (id, value) in values.enumerated() { try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [id, value]) }
        }
        let read = try db.read { db in try DatabaseValue.fetchAll(db, sql: "SELECT v FROM t ORDER BY id") }
        XCTAssertEqual(read, values)
        XCTAssertEqual(try db.read { try String.fetchOne($0, sql: "SELECT typeof(?)", arguments: [""]) }, "text")
    }

    func testConversionsAreExact() {
        XCTAssertEqual(Int64.fromDatabaseValue(.integer(7)), 7)
        XCTAssertEqual(Int.fromDatabaseValue(.real(3)), 3)
        XCTAssertNil(Int.fromDatabaseValue(.real(3.5)))
        XCTAssertNil(Int64.fromDatabaseValue(.real(1e19)))
        XCTAssertNil(Int64.fromDatabaseValue(.text("12")), "a text is not a number")
        XCTAssertNil(Int64.fromDatabaseValue(.null))
        XCTAssertNil(Int32.fromDatabaseValue(.integer(1 << 40)))
        XCTAssertEqual(Double.fromDatabaseValue(.integer(2)), 2)
        XCTAssertNil(Double.fromDatabaseValue(.text("2")))
        XCTAssertEqual(Bool.fromDatabaseValue(.integer(2)), true)
        XCTAssertEqual(Bool.fromDatabaseValue(.integer(0)), false)
        XCTAssertNil(String.fromDatabaseValue(.integer(1)))
        XCTAssertEqual(String?.fromDatabaseValue(.null), .some(nil))
        let wrongKind: String?? = String?.fromDatabaseValue(.integer(1))
        XCTAssertTrue(wrongKind == nil, "an optional is nil only for NULL, not for a value of another kind")
    }

    func testArgumentsMustMatchTheParameters() throws {
        let db = try DatabaseQueue(path: dir.file("v.sqlite"))
        try db.write { try $0.execute(sql: "CREATE TABLE t (a, b)") }
        XCTAssertThrowsError(try db.write { try $0.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [1]) }) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_MISUSE)
            XCTAssertTrue("\(error)".contains("INSERT INTO t"), "\(error)")
        }
        XCTAssertThrowsError(try db.write { try $0.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [1, 2, 3]) })
        // Several statements take their arguments in order.
        try db.write { try $0.execute(sql: "INSERT INTO t VALUES (?, ?); INSERT INTO t VALUES (?, 'x') -- done", arguments: [1, 2, 3]) }
        let rows = try db.read { try Row.fetchAll($0, sql: "SELECT a, b FROM t ORDER BY rowid") }
        XCTAssertEqual(rows.map { $0.databaseValue(atIndex: 1) }, [.integer(2), .text("x")])
        XCTAssertEqual(try db.read { try Int.fetchAll($0, sql: "SELECT a FROM t ORDER BY rowid") }, [1, 3])
    }

    func testAValueOfAnotherKindIsAnErrorNamingTheColumn() throws {
        let db = try DatabaseQueue(path: dir.file("v.sqlite"))
        let row = try XCTUnwrap(try db.read { try Row.fetchOne($0, sql: "SELECT 'many' AS size, NULL AS gone, 4 AS Count") })
        XCTAssertThrowsError(try row.decode(Int64.self, atIndex: 0)) { XCTAssertTrue("\($0)".contains("size holds 'many'"), "\($0)") }
        XCTAssertThrowsError(try row.decode(Int64.self, forKey: "gone")) { XCTAssertTrue("\($0)".contains("gone holds NULL"), "\($0)") }
        XCTAssertNil(try row.decode(Int64?.self, forKey: "gone"))
        XCTAssertNil(try row.decode(Int64?.self, forKey: "absent"), "a missing column is NULL")
        XCTAssertEqual(row["count"] as Int, 4, "names are case-insensitive")
        XCTAssertEqual(row["Count"] as Int, 4)
    }
}
