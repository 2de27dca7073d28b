import Dispatch
import PodqSQLite
import PodqTestSupport
import Synchronization
import XCTest

/// One writer, several readers, each read a snapshot; another program's lock waited for as told.
final class DatabasePoolTests: XCTestCase {
    private var dir: TemporaryDirectory!
    override func setUp() { dir = TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    private func pool(_ configuration: Configuration = Configuration()) throws -> DatabasePool {
        let pool = try DatabasePool(path: dir.file("p.sqlite"), configuration: configuration)
        try pool.write { try $0.execute(sql: "CREATE TABLE IF NOT EXISTS t (v INTEGER)") }
        return pool
    }

    func testAReadSeesCommittedRowsOnlyAndCannotWrite() throws {
        let pool = try pool()
        XCTAssertEqual(try pool.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }, "wal")
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN IMMEDIATE; INSERT INTO t VALUES (1)")
            XCTAssertEqual(try pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }, 0, "a write in progress is not seen")
            try db.execute(sql: "COMMIT")
        }
        XCTAssertEqual(try pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }, 1)
        XCTAssertThrowsError(try pool.read { try $0.execute(sql: "INSERT INTO t VALUES (2)") }) {
            XCTAssertEqual(($0 as? DatabaseError)?.resultCode, .SQLITE_READONLY)
        }
    }

    func testAFailedWriteIsRolledBack() throws {
        struct Stop: Error {}
        let pool = try pool()
        XCTAssertThrowsError(
            try pool.write { db in
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                throw Stop()
            })
        XCTAssertEqual(try pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }, 0)
        try pool.write { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
        XCTAssertEqual(try pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }, 1, "the writer works after a rollback")
    }

    /// Another program's lock: the busy callback is asked with a growing count of tries, and its
    /// "no" ends the wait with SQLITE_BUSY.
    func testAnotherProgramsLockIsWaitedForAsTheCallbackSays() throws {
        let tries = Mutex<[Int]>([])
        var configuration = Configuration()
        configuration.busyMode = .callback { count in
            tries.withLock { $0.append(count) }
            return count < 5
        }
        let pool = try pool(configuration)
        let other = try DatabaseQueue(path: dir.file("p.sqlite"))
        try other.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }
        XCTAssertThrowsError(try pool.write { try $0.execute(sql: "INSERT INTO t VALUES (1)") }) {
            XCTAssertEqual(($0 as? DatabaseError)?.resultCode, .SQLITE_BUSY)
        }
        XCTAssertEqual(tries.withLock { $0 }, [0, 1, 2, 3, 4, 5])
        try other.writeWithoutTransaction { try $0.execute(sql: "COMMIT") }
        try pool.write { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
    }

    /// A connection opened with the defaults waits for a lock another holds a moment (a store of the
    /// same process closing, another program's write), and gives up at its deadline when it is held on.
    func testTheDefaultWaitsForAShortLockAndNotForever() throws {
        let pool = try pool()
        let other = try DatabaseQueue(path: dir.file("p.sqlite"))
        try other.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }
        let released = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) {
            try? other.writeWithoutTransaction { try $0.execute(sql: "COMMIT") }
            released.signal()
        }
        try pool.write { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
        released.wait()
        XCTAssertEqual(try pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }, 1)

        var short = Configuration()
        short.busyMode = .timeout(0.2)
        let waiting = try DatabaseQueue(path: dir.file("p.sqlite"), configuration: short)
        try other.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }
        XCTAssertThrowsError(try waiting.write { try $0.execute(sql: "INSERT INTO t VALUES (2)") }) {
            XCTAssertEqual(($0 as? DatabaseError)?.resultCode, .SQLITE_BUSY)
        }
        try other.writeWithoutTransaction { try $0.execute(sql: "COMMIT") }
    }

    func testManyReadsAndWritesAtOnceAllHappen() async throws {
        let pool = try pool()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<200 {
                group.addTask {
                    if i % 2 == 0 {
                        try await pool.write { try $0.execute(sql: "INSERT INTO t VALUES (?)", arguments: [i]) }
                    } else {
                        let count = try await pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") ?? -1 }
                        XCTAssertTrue((0...100).contains(count))
                    }
                }
            }
            try await group.waitForAll()
        }
        let count = try await pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }
        XCTAssertEqual(count, 100)
        pool.releaseMemory()
        let sum = try await pool.read { try Int.fetchOne($0, sql: "SELECT sum(v) FROM t") }
        XCTAssertEqual(sum, (0..<100).map { $0 * 2 }.reduce(0, +), "readers opened again after the idle ones were closed")
    }
}
