import FoundationEssentials
import Glibc
import PodqBase
import PodqHTTP
import PodqSQLite
import Synchronization

/// The durable queue: an SQLite database (WAL) in the home, through PodqSQLite's pool.
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
        let folder = LexicalPath.parent(of: path)
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
            throw storeError(error, waited: lockWait.done(gotIt: false))
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do { return try pool.read(body) } catch { throw storeError(error) }
    }

    /// ``write(_:)`` without blocking a thread: the pool's async write (the queue runner's).
    func writeAsync<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        defer { writes.add(1, ordering: .relaxed) }
        do {
            let result = try await pool.write(body)
            lockWait.done(gotIt: true)
            return result
        } catch {
            throw storeError(error, waited: lockWait.done(gotIt: false))
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
            throw storeError(error, waited: lockWait.done(gotIt: false))
        }
    }

    /// ``read(_:)`` without blocking a thread.
    func readAsync<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        do { return try await pool.read(body) } catch { throw storeError(error) }
    }

    /// Any failure of a read or a write as the ``StoreError`` a person can act on; `waited`: how long a
    /// write waited for another program's lock before it gave up (its patience, or less when the run
    /// stopped).
    func storeError(_ error: any Error, waited: Double? = nil) -> StoreError {
        switch error {
        case let error as StoreError: error
        case let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED:
            .locked(path: path, seconds: waited ?? LockWait.patience)
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
            try db.execute(
                sql: """
                    CREATE TABLE "download" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "position" INTEGER NOT NULL, "url" TEXT NOT NULL, \
                    "title" TEXT NOT NULL, "podcast" TEXT, "destination" TEXT NOT NULL, "state" TEXT NOT NULL, \
                    "bytesReceived" INTEGER NOT NULL DEFAULT 0, "bytesExpected" INTEGER, "etag" TEXT, "lastModified" TEXT, \
                    "totalLength" INTEGER, "finalURL" TEXT, "attempts" INTEGER NOT NULL DEFAULT 0, "lastError" TEXT, "retryAt" DOUBLE, \
                    "createdAt" DOUBLE NOT NULL, "updatedAt" DOUBLE NOT NULL, "completedAt" DOUBLE);
                    CREATE INDEX "download_position" ON "download"("position")
                    """)
        }
        migrator.registerMigration("v2: podcast and episode") { db in
            try db.execute(
                sql: """
                    CREATE TABLE "podcast" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "title" TEXT NOT NULL, "url" TEXT NOT NULL UNIQUE, \
                    "link" TEXT, "description" TEXT, "author" TEXT, "imageURL" TEXT, "etag" TEXT, "lastModified" TEXT, \
                    "lastRefresh" DOUBLE, "error" TEXT, "autoQueue" BOOLEAN NOT NULL DEFAULT 0, "createdAt" DOUBLE NOT NULL);
                    CREATE TABLE "episode" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, \
                    "podcastId" INTEGER NOT NULL REFERENCES "podcast"("id") ON DELETE CASCADE, "guid" TEXT, "enclosureKey" TEXT NOT NULL, \
                    "title" TEXT NOT NULL, "link" TEXT, "description" TEXT, "published" DOUBLE, "duration" INTEGER, "url" TEXT NOT NULL, \
                    "type" TEXT, "length" INTEGER, "season" INTEGER, "episodeNumber" INTEGER, "firstSeenAt" DOUBLE NOT NULL, \
                    "downloadId" INTEGER REFERENCES "download"("id") ON DELETE SET NULL);
                    CREATE INDEX "episode_guid" ON "episode"("podcastId", "guid");
                    CREATE INDEX "episode_key" ON "episode"("podcastId", "enclosureKey");
                    """)
            try db.add(columns: ["episodeId INTEGER"], to: "download")
        }
        migrator.registerMigration("v3: download folder and committed file") { db in
            try db.add(
                columns: ["folder TEXT", "commitPath TEXT", "commitDevice INTEGER", "commitInode INTEGER", "commitSize INTEGER", "commitModified INTEGER"],
                to: "download")
        }
        migrator.registerMigration("v4: whole enclosure URLs as keys, feed repairs") { db in
            try db.add(columns: ["repairs TEXT"], to: "podcast")
            // The key was the URL without its query, which merged `get.php?id=1` and `?id=2`.
            let rows = try Row.fetchAll(db, sql: "SELECT id, url FROM episode")
            for row in rows {
                let url: String = row["url"]
                try db.execute(sql: "UPDATE episode SET enclosureKey = ? WHERE id = ?", arguments: [EpisodeRecord.key(for: url), row["id"] as Int64])
            }
        }
        migrator.registerMigration("v5: podcast logins and User-Agent") { db in
            try db.add(columns: ["loginUser TEXT", "loginPassword TEXT", "passwordCommand TEXT", "userAgent TEXT"], to: "podcast")
        }
        migrator.registerMigration("v6: every enclosure of an item") { db in
            try db.add(columns: ["enclosures TEXT"], to: "episode")
        }
        migrator.registerMigration("v7: played episodes") { db in
            try db.add(columns: ["playedAt DOUBLE"], to: "episode")
        }
        migrator.registerMigration("v8: search in show notes") { db in try LibraryStore.createNotesIndex(db) }
        migrator.registerMigration("v9: segmented downloads") { db in
            try db.add(columns: ["segments TEXT"], to: "download")
        }
        migrator.registerMigration("v10: integrity") { db in
            try db.add(columns: ["digests TEXT"], to: "episode")
            try db.add(
                columns: ["publishedDigests TEXT", "serverDigests TEXT", "checksum TEXT", "sha256 TEXT", "verifiedBy TEXT", "integrityProblem TEXT"],
                to: "download")
        }
        migrator.registerMigration("v11: the ledger of downloaded episodes") { db in try LibraryStore.createLedger(db) }
        migrator.registerMigration("v12: podcast settings") { db in
            try db.add(columns: ["settings TEXT"], to: "podcast")
        }
        migrator.registerMigration("v13: updated upstream") { db in
            try db.add(columns: ["upstreamChange TEXT"], to: "episode")
            try db.add(columns: ["replaces INTEGER"], to: "download")
        }
        migrator.registerMigration("v14: offline-complete episodes") { db in
            try db.add(columns: ["transcripts TEXT", "chaptersURL TEXT", "imageURL TEXT"], to: "episode")
        }
        migrator.registerMigration("v15: a login bound to its origin") { db in
            try db.add(columns: ["loginOrigin TEXT"], to: "podcast")
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
            try db.execute(sql: #"CREATE INDEX IF NOT EXISTS "episode_download" ON "episode"("downloadId")"#)
        }
        migrator.registerMigration("v17: sync with a phone") { db in try SyncStore.createSyncTables(db) }
        migrator.registerMigration("v18: downloads told to a gpodder.net server") { db in try SyncStore.createSyncDownloadTrigger(db) }
        migrator.registerMigration("v19: the committed file's birth time") { db in
            // With the inode, it tells the file podq wrote (changed since: bit rot) from a new file that
            // took the freed inode number: `podq queue add --replace` of a changed file (issue 41).
            try db.add(columns: ["commitBorn INTEGER"], to: "download")
        }
        migrator.registerMigration("v20: plays from a wrong clock") { db in
            // A play stamped in the future is counted at the time it first arrived (issue 42): the time
            // it arrived, kept, so a pull again (the overlap window) does not make it newer each time.
            try db.execute(sql: #"CREATE TABLE "sync_future" ("action" TEXT PRIMARY KEY NOT NULL, "receivedAt" DOUBLE NOT NULL)"#)
        }
        migrator.registerMigration("v21: transcripts and their words") { db in try LibraryStore.createTranscripts(db) }
        return migrator
    }
}
