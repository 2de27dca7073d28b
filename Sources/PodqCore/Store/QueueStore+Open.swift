import FoundationEssentials
import Glibc
import PodqSQLite

extension QueueStore {
    /// Looks at the file at `path`, then opens the pool and brings the schema up to date.
    ///
    /// Several processes may open a home at once (the TUI, a cron job, `podq queue add`), a new one
    /// or one an upgrade must migrate. SQLite does not make that safe by itself: the switch of a new
    /// file to WAL answers "busy" without waiting, and two processes would both run a pending
    /// migration. So the look happens under a shared ``SchemaLock`` on the database's folder, and
    /// creating or migrating under an exclusive one; a database that is up to date is opened without
    /// writing anything.
    static func openPool(path: String, folder: String, lockWait: LockWait) throws -> DatabasePool {
        let lock = SchemaLock(folder: folder)
        lock.take(exclusive: false)
        var current = false
        var info = stat()
        if stat(path, &info) == 0 && info.st_size > 0 {
            current = try look(at: path)
        }
        if !current { lock.take(exclusive: true) }
        // The database holds logins of private feeds: it is the user's alone (0600), and SQLite
        // gives its -wal and -shm files the same mode.
        // Only a file that is not there yet is opened here: SQLite's locks are POSIX locks, and closing
        // any descriptor of the file drops every lock this process holds on it, so an open and close of
        // a database another store of this process uses would let another podq checkpoint and delete
        // the WAL under it (QueueCommandTests.testASecondStoreInOneProcessKeepsTheFirstsLocks).
        if stat(path, &info) != 0 {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if fd >= 0 { close(fd) }
        }
        for file in [path, path + "-wal", path + "-shm"] where stat(file, &info) == 0 && info.st_mode & 0o077 != 0 {
            chmod(file, info.st_mode & 0o700)
        }
        var configuration = Configuration()
        configuration.label = "podq.queue"
        // Where the lock could not be had (a file system without `flock`), "busy" is tried again.
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            do {
                // A write waits as long as another program holds the lock, up to LockWait.patience,
                // and says so (LockWait).
                configuration.busyMode = .callback { tries in lockWait.busy(tries: tries) }
                let pool = try DatabasePool(path: path, configuration: configuration)
                if !current { try migrator.migrate(pool) }
                return pool
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && ContinuousClock.now < deadline {
                usleep(UInt32.random(in: 5_000...25_000))
            }
        }
    }

    /// Reads the file without touching it (opening the pool would switch a stranger's file to WAL):
    /// a damaged or foreign file, or one from a newer podq, throws. True when its schema is current.
    private static func look(at path: String) throws -> Bool {
        var look = Configuration()
        look.readonly = true
        look.busyMode = .timeout(10)
        return try DatabaseQueue(path: path, configuration: look).read { db in
            let appID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            if appID != Self.applicationID && (appID != 0 || !tables.isEmpty) {
                throw StoreError.foreign(path: path)
            }
            if try Self.migrator.hasBeenSuperseded(db) { throw StoreError.newerVersion(path: path) }
            return try Self.migrator.hasCompletedMigrations(db)
        }
    }
}

/// An advisory `flock` on the folder that holds the database, taken while a process looks at its
/// schema (shared) or creates or migrates it (exclusive), and dropped when this value goes.
final class SchemaLock {
    private let fd: Int32

    init(folder: String) {
        fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    }

    /// Waits up to 10 s for the lock. Where it cannot be had (no `flock` on this file system, or a
    /// process stuck holding it), the caller goes on without it.
    func take(exclusive: Bool) {
        guard fd >= 0 else { return }
        // A shared lock is dropped first: two processes that both wait to upgrade must not hold it.
        flock(fd, LOCK_UN)
        let deadline = ContinuousClock.now + .seconds(10)
        while flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < deadline else { return }
            usleep(2_000)
        }
    }

    deinit {
        if fd >= 0 { close(fd) }
    }
}
