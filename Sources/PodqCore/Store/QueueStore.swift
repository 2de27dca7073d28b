import Foundation
import GRDB
import PodqHTTP
import Synchronization

/// The durable queue: an SQLite database (WAL) in the home, through GRDB.
///
/// Every change is one committed transaction, so a crash or `kill -9` loses nothing acknowledged.
/// Several processes may open it at once (the runner, `podq queue add`, read-only commands).
public final class QueueStore: Sendable {
    /// `PRAGMA application_id` of podq's databases ("podq" in ASCII).
    static let applicationID: Int32 = 0x706F_6471
    /// The database file.
    public let path: String
    let pool: DatabasePool
    /// Transactions this store wrote (see ``changeStamp()``).
    private let writes = Atomic<Int>(0)
    /// How long a write has waited for the lock another program holds (``LockWait``).
    public let lockWait: LockWait

    /// Opens (or creates) the database at `path` and brings its schema up to date.
    /// - Throws: ``StoreError`` naming the file: damaged, not podq's, from a newer podq, or unwritable.
    /// - Parameter lockWait: the waits for another program's lock, watched from the command's start
    ///   (``LockWait``): opening may wait already.
    public init(path: String, lockWait: LockWait = LockWait()) throws(StoreError) {
        self.path = path
        self.lockWait = lockWait
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw .cannotOpen(path: path, reason: "cannot create \(folder)")
        }
        // The files podq writes next to the database: a link or a FIFO in the place of one is refused,
        // named, before anything is opened (docs/FILES.md).
        // (A FIFO at podq.log is only not written to: the log is no reason for a command to fail.)
        for file in [path, path + "-wal", path + "-shm", path + "-journal"] + ["lock", "sync.lock", "podq.log"].map({ folder + "/" + $0 }) {
            guard let refusal = OwnFile.check(file), refusal == .link || !file.hasSuffix("/podq.log") else { continue }
            throw .notOwnFile(path: file, reason: refusal.reason)
        }
        do {
            pool = try Self.openPool(path: path, folder: folder, lockWait: lockWait)
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw Self.map(error, path: path)
        } catch {
            throw .cannotOpen(path: path, reason: String(describing: error))
        }
    }

    static func map(_ error: DatabaseError, path: String) -> StoreError {
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT: .corrupt(path: path, reason: error.message ?? "not a database")
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY: .cannotOpen(path: path, reason: error.message ?? "\(error.resultCode)")
        default: .database(error.message ?? "\(error)")
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        defer { writes.add(1, ordering: .relaxed) }
        do {
            let result = try pool.write(body)
            lockWait.done(gotIt: true)
            return result
        } catch {
            lockWait.done(gotIt: false)
            throw storeError(error)
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do { return try pool.read(body) } catch { throw storeError(error) }
    }

    /// ``write(_:)`` without blocking a thread: GRDB's async write (the queue runner's).
    func writeAsync<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        defer { writes.add(1, ordering: .relaxed) }
        do {
            let result = try await pool.write(body)
            lockWait.done(gotIt: true)
            return result
        } catch {
            lockWait.done(gotIt: false)
            throw storeError(error)
        }
    }

    /// What changes whenever the database changes: this store's writes, and SQLite's
    /// `PRAGMA data_version` on the writer's connection, which changes when another connection (another
    /// podq) commits. Equal stamps: nothing changed in between, so the queue runner need not read again.
    public struct ChangeStamp: Sendable, Equatable {
        var own: Int
        var others: Int64
    }

    /// Frees what SQLite keeps in memory (each connection's page cache, the readers not in use) after a
    /// big read, such as the TUI's whole library.
    public func releaseMemory() {
        pool.releaseMemory()
    }

    /// The ``ChangeStamp`` now: one pragma, no table read.
    public func changeStamp() async throws(StoreError) -> ChangeStamp {
        let own = writes.load(ordering: .relaxed)
        let others = try await readOnWriter { db in try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
        return ChangeStamp(own: own, others: others)
    }

    /// A read on the writer's connection (`data_version` counts other connections' commits per connection).
    func readOnWriter<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        do {
            let result = try await pool.writeWithoutTransaction(body)
            lockWait.done(gotIt: true)
            return result
        } catch {
            lockWait.done(gotIt: false)
            throw storeError(error)
        }
    }

    /// ``read(_:)`` without blocking a thread.
    func readAsync<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        do { return try await pool.read(body) } catch { throw storeError(error) }
    }

    /// Any failure of a read or a write as the ``StoreError`` a person can act on.
    func storeError(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError: error
        case let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED:
            .locked(path: path, seconds: LockWait.patience)
        case let error as DatabaseError: Self.map(error, path: path)
        default: .database(String(describing: error))
        }
    }

    // MARK: - Schema

    /// The migrations, from the first version on. Never edit one that shipped: add the next.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: download") { db in
            try db.execute(sql: "PRAGMA application_id = \(applicationID)")
            try db.create(table: "download") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("position", .integer).notNull()
                t.column("url", .text).notNull()
                t.column("title", .text).notNull()
                t.column("podcast", .text)
                t.column("destination", .text).notNull()
                t.column("state", .text).notNull()
                t.column("bytesReceived", .integer).notNull().defaults(to: 0)
                t.column("bytesExpected", .integer)
                t.column("etag", .text)
                t.column("lastModified", .text)
                t.column("totalLength", .integer)
                t.column("finalURL", .text)
                t.column("attempts", .integer).notNull().defaults(to: 0)
                t.column("lastError", .text)
                t.column("retryAt", .double)
                t.column("createdAt", .double).notNull()
                t.column("updatedAt", .double).notNull()
                t.column("completedAt", .double)
            }
            try db.create(index: "download_position", on: "download", columns: ["position"])
        }
        migrator.registerMigration("v2: podcast and episode") { db in
            try db.create(table: "podcast") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("title", .text).notNull()
                t.column("url", .text).notNull().unique()
                t.column("link", .text)
                t.column("description", .text)
                t.column("author", .text)
                t.column("imageURL", .text)
                t.column("etag", .text)
                t.column("lastModified", .text)
                t.column("lastRefresh", .double)
                t.column("error", .text)
                t.column("autoQueue", .boolean).notNull().defaults(to: false)
                t.column("createdAt", .double).notNull()
            }
            try db.create(table: "episode") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("podcastId", .integer).notNull().references("podcast", onDelete: .cascade)
                t.column("guid", .text)
                t.column("enclosureKey", .text).notNull()
                t.column("title", .text).notNull()
                t.column("link", .text)
                t.column("description", .text)
                t.column("published", .double)
                t.column("duration", .integer)
                t.column("url", .text).notNull()
                t.column("type", .text)
                t.column("length", .integer)
                t.column("season", .integer)
                t.column("episodeNumber", .integer)
                t.column("firstSeenAt", .double).notNull()
                t.column("downloadId", .integer).references("download", onDelete: .setNull)
            }
            try db.create(index: "episode_guid", on: "episode", columns: ["podcastId", "guid"])
            try db.create(index: "episode_key", on: "episode", columns: ["podcastId", "enclosureKey"])
            try db.alter(table: "download") { t in t.add(column: "episodeId", .integer) }
        }
        migrator.registerMigration("v3: download folder and committed file") { db in
            try db.alter(table: "download") { t in
                t.add(column: "folder", .text)
                t.add(column: "commitPath", .text)
                t.add(column: "commitDevice", .integer)
                t.add(column: "commitInode", .integer)
                t.add(column: "commitSize", .integer)
                t.add(column: "commitModified", .integer)
            }
        }
        migrator.registerMigration("v4: whole enclosure URLs as keys, feed repairs") { db in
            try db.alter(table: "podcast") { t in t.add(column: "repairs", .text) }
            // The key was the URL without its query, which merged `get.php?id=1` and `?id=2`.
            let rows = try Row.fetchAll(db, sql: "SELECT id, url FROM episode")
            for row in rows {
                let url: String = row["url"]
                try db.execute(sql: "UPDATE episode SET enclosureKey = ? WHERE id = ?", arguments: [EpisodeRecord.key(for: url), row["id"] as Int64])
            }
        }
        migrator.registerMigration("v5: podcast logins and User-Agent") { db in
            try db.alter(table: "podcast") { t in
                t.add(column: "loginUser", .text)
                t.add(column: "loginPassword", .text)
                t.add(column: "passwordCommand", .text)
                t.add(column: "userAgent", .text)
            }
        }
        migrator.registerMigration("v6: every enclosure of an item") { db in
            try db.alter(table: "episode") { t in t.add(column: "enclosures", .text) }
        }
        migrator.registerMigration("v7: played episodes") { db in
            try db.alter(table: "episode") { t in t.add(column: "playedAt", .double) }
        }
        migrator.registerMigration("v8: search in show notes") { db in try LibraryStore.createNotesIndex(db) }
        migrator.registerMigration("v9: segmented downloads") { db in
            try db.alter(table: "download") { t in t.add(column: "segments", .text) }
        }
        migrator.registerMigration("v10: integrity") { db in
            try db.alter(table: "episode") { t in t.add(column: "digests", .text) }
            try db.alter(table: "download") { t in
                t.add(column: "publishedDigests", .text)
                t.add(column: "serverDigests", .text)
                t.add(column: "checksum", .text)
                t.add(column: "sha256", .text)
                t.add(column: "verifiedBy", .text)
                t.add(column: "integrityProblem", .text)
            }
        }
        migrator.registerMigration("v11: the ledger of downloaded episodes") { db in try LibraryStore.createLedger(db) }
        migrator.registerMigration("v12: podcast settings") { db in
            try db.alter(table: "podcast") { t in t.add(column: "settings", .text) }
        }
        migrator.registerMigration("v13: updated upstream") { db in
            try db.alter(table: "episode") { t in t.add(column: "upstreamChange", .text) }
            try db.alter(table: "download") { t in t.add(column: "replaces", .integer) }
        }
        migrator.registerMigration("v14: offline-complete episodes") { db in
            try db.alter(table: "episode") { t in
                t.add(column: "transcripts", .text)
                t.add(column: "chaptersURL", .text)
                t.add(column: "imageURL", .text)
            }
        }
        migrator.registerMigration("v15: a login bound to its origin") { db in
            try db.alter(table: "podcast") { t in t.add(column: "loginOrigin", .text) }
            // Logins given before: bound to where their feed is now (the best there is to know).
            for row in try Row.fetchAll(db, sql: "SELECT id, url FROM podcast WHERE loginUser IS NOT NULL") {
                let url: String = row["url"]
                try db.execute(
                    sql: "UPDATE podcast SET loginOrigin = ? WHERE id = ?",
                    arguments: [URL(string: url).flatMap(Credentials.origin(of:)), row["id"] as Int64])
            }
        }
        migrator.registerMigration("v16: every foreign key indexed") { db in
            // Deleting a download sets its episode's downloadId to NULL: without this index SQLite scanned
            // every episode for each deleted row (1,000 completed rows cleared in 69–83 s at 100,000 episodes).
            try db.create(index: "episode_download", on: "episode", columns: ["downloadId"], ifNotExists: true)
        }
        migrator.registerMigration("v17: sync with a phone") { db in try SyncStore.createSyncTables(db) }
        migrator.registerMigration("v18: downloads told to a gpodder.net server") { db in try SyncStore.createSyncDownloadTrigger(db) }
        migrator.registerMigration("v19: the committed file's birth time") { db in
            // With the inode, it tells the file podq wrote (changed since: bit rot) from a new file that
            // took the freed inode number: `podq queue add --replace` of a changed file (issue 41).
            try db.alter(table: "download") { t in t.add(column: "commitBorn", .integer) }
        }
        migrator.registerMigration("v20: plays from a wrong clock") { db in
            // A play stamped in the future is counted at the time it first arrived (issue 42): the time
            // it arrived, kept, so a pull again (the overlap window) does not make it newer each time.
            try db.create(table: "sync_future") { t in
                t.primaryKey("action", .text)
                t.column("receivedAt", .double).notNull()
            }
        }
        return migrator
    }
}
