import Dispatch
import Synchronization

/// A database in WAL mode with one writing connection and up to
/// ``Configuration/maximumReaderCount`` reading ones: reads run beside a write and beside each other,
/// each in a transaction of its own (a snapshot); writes run one at a time.
public final class DatabasePool: DatabaseWriter {
    public let path: String
    private let configuration: Configuration
    private let writer: SerializedDatabase
    /// Reading connections not in use.
    private let idle = Mutex<[ReaderBox]>([])
    /// One permit per reading connection there may be.
    private let permits: DispatchSemaphore
    /// Where ``read(_:)-(@Sendable…)`` waits for a reader and reads: serial queues, taken in turn
    /// (a concurrent queue's threads are those of Swift's tasks on Linux).
    private let lanes: [DispatchQueue]
    private let nextLane = Atomic<Int>(0)

    /// Opens the file (created when missing) and switches it to WAL.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        self.path = path
        self.configuration = configuration
        let label = configuration.label ?? "podq.sqlite"
        let database = try Database(path: path, configuration: configuration)
        let mode = try String.fetchOne(database, sql: "PRAGMA journal_mode = WAL")
        guard mode == "wal" else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "could not switch \(path) to WAL (it stays \(mode ?? "unknown"))")
        }
        // What SQLite advises with WAL: a commit is durable once the WAL is synced at checkpoints, and
        // a crash (not a power loss) loses nothing committed.
        try database.execute(sql: "PRAGMA synchronous = NORMAL")
        writer = SerializedDatabase(database, label: label + ".writer")
        let count = max(1, configuration.maximumReaderCount)
        permits = DispatchSemaphore(value: count)
        lanes = (0..<count).map { DispatchQueue(label: label + ".reader.\($0)", qos: .userInitiated) }
    }

    deinit {
        idle.withLock { $0.removeAll() }
    }

    // MARK: - Writes

    public func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T { try writer.sync(body) }

    /// ``write(_:)`` without blocking the caller's thread.
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writer.async { db in try db.inTransaction(.immediate) { try body(db) } }
    }

    /// ``writeWithoutTransaction(_:)`` without blocking the caller's thread.
    public func writeWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writer.async(body)
    }

    // MARK: - Reads

    /// Runs `body` on a reading connection, in a transaction that sees one state of the database.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        permits.wait()
        defer { permits.signal() }
        let reader = try idle.withLock { $0.popLast() } ?? ReaderBox(try openReader())
        defer { idle.withLock { $0.append(reader) } }
        return try reader.database.inTransaction(.deferred) { try body(reader.database) }
    }

    /// ``read(_:)-(…)`` without blocking the caller's thread.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let lane = lanes[nextLane.add(1, ordering: .relaxed).newValue % lanes.count]
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            lane.async { continuation.resume(with: Result { try self.read(body) }) }
        }
    }

    /// A reading connection: opened for reading and writing (so that it may create the `-wal` and
    /// `-shm` files, which a read-only one cannot), and refusing writes (`query_only`).
    private func openReader() throws -> Database {
        let database = try Database(path: path, configuration: configuration)
        try database.execute(sql: "PRAGMA query_only = 1")
        return database
    }

    /// Frees what SQLite keeps in memory: the writer's cache, and the readers not in use are closed.
    public func releaseMemory() {
        _ = try? writer.sync { $0.releaseMemory() }
        // Closed here, outside the lock, as the last references go.
        var readers = idle.withLock { idle in
            defer { idle.removeAll() }
            return idle
        }
        readers.removeAll()
    }
}

/// A reading connection handed from thread to thread, one at a time, through the pool's lock.
///
/// Why `@unchecked Sendable` is true: a box is either in `idle` (touched only under its `Mutex`) or
/// held by exactly one `read`, which took it out under that lock and puts it back before returning;
/// no two threads ever hold the same box. `Mutex<[Database]>` was tried: the compiler cannot see that a
/// connection popped from the array leaves it (`'inout sending' parameter cannot be task-isolated`).
private final class ReaderBox: @unchecked Sendable {
    let database: Database
    init(_ database: Database) { self.database = database }
}
