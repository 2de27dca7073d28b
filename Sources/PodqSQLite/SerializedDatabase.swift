import Dispatch

/// A connection and the serial queue that is the only way to it: one thread at a time uses it.
final class SerializedDatabase: @unchecked Sendable {
    // Why `@unchecked Sendable` is true: `database` is read only inside blocks run on `queue`, a serial
    // queue (`sync`, `async`), and `sync` refuses to run inside one of its own blocks; so one thread at a
    // time uses the connection, as SQLite's SQLITE_OPEN_NOMUTEX requires. An actor cannot serve the
    // synchronous `sync` callers (the CLI commands), which is why it is a queue.
    private let database: Database
    let queue: DispatchQueue
    private let key = DispatchSpecificKey<Bool>()

    init(_ database: Database, label: String) {
        self.database = database
        queue = DispatchQueue(label: label, qos: .userInitiated)
        queue.setSpecific(key: key, value: true)
    }

    /// Runs `body` on the queue and waits for it. Called again from inside `body`, it stops the program:
    /// it would wait for itself forever.
    func sync<T>(_ body: (Database) throws -> T) throws -> T {
        precondition(DispatchQueue.getSpecific(key: key) == nil, "a database access inside another on the same connection would wait for itself")
        return try queue.sync { try body(database) }
    }

    /// Runs `body` on the queue without blocking the caller's thread.
    func async<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            queue.async { continuation.resume(with: Result { try body(self.database) }) }
        }
    }
}

/// What a migration or a test writes through: a ``DatabasePool``'s writer or a ``DatabaseQueue``.
public protocol DatabaseWriter: Sendable {
    /// Runs `body` alone on the writing connection, in no transaction of its own.
    func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T
}

extension DatabaseWriter {
    /// Runs `body` in an immediate transaction: committed when it returns, rolled back when it throws.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try writeWithoutTransaction { db in try db.inTransaction(.immediate) { try body(db) } }
    }
}

/// One connection for everything, as a test or a second program uses the file: reads and writes wait
/// for each other.
public final class DatabaseQueue: DatabaseWriter {
    private let connection: SerializedDatabase

    public init(path: String, configuration: Configuration = Configuration()) throws {
        connection = SerializedDatabase(
            try Database(path: path, configuration: configuration), label: configuration.label ?? "podq.sqlite.queue")
    }

    public func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T { try connection.sync(body) }

    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try connection.sync { db in try db.inTransaction(.deferred) { try body(db) } }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await connection.async { db in try db.inTransaction(.immediate) { try body(db) } }
    }

    public func writeWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await connection.async(body)
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await connection.async { db in try db.inTransaction(.deferred) { try body(db) } }
    }
}
