import CSQLite

/// How a connection is opened.
public struct Configuration: Sendable {
    /// Opened `SQLITE_OPEN_READONLY`: a write is an error.
    public var readonly = false
    /// What a statement does when another connection holds the lock it needs: by default it waits up
    /// to 5 s (SQLite's own wait), so a connection of this process that is closing (its last
    /// checkpoint) or another program's short write is waited for, and the wait has a deadline.
    /// `.immediateError` fails at once, as GRDB's default does.
    public var busyMode: BusyMode = .timeout(5)
    /// `PRAGMA foreign_keys = ON` on every connection (SQLite's own default is off).
    public var foreignKeysEnabled = true
    /// The name of the dispatch queues of a ``DatabasePool`` or a ``DatabaseQueue``.
    public var label: String? = nil
    /// How many reading connections a ``DatabasePool`` opens at most.
    public var maximumReaderCount = 5

    public init() {}

    public enum BusyMode: Sendable {
        /// `SQLITE_BUSY` at once.
        case immediateError
        /// SQLite's own wait, up to this many seconds.
        case timeout(Double)
        /// Asked after each try (the count of tries so far): true tries again.
        case callback(@Sendable (Int) -> Bool)
    }
}

/// One SQLite connection. Not thread-safe: a ``DatabasePool`` or a ``DatabaseQueue`` hands it to one
/// thread at a time, inside its `read` or `write`.
public final class Database {
    let handle: OpaquePointer
    public let path: String
    public let configuration: Configuration
    private var statements: [String: Statement] = [:]
    /// The busy callback, kept alive as long as SQLite may call it.
    private var busy: Unmanaged<BusyBox>?

    /// Opens the file at `path` (created when missing, unless read-only).
    public init(path: String, configuration: Configuration = Configuration()) throws {
        self.path = path
        self.configuration = configuration
        var flags = configuration.readonly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        // One thread at a time uses a connection (its pool's lane): SQLite's own mutexes are not needed.
        // SQLITE_OPEN_EXRESCODE: extended result codes from the open itself on.
        flags |= SQLITE_OPEN_NOMUTEX | 0x0200_0000
        var connection: OpaquePointer?
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) }
            sqlite3_close_v2(connection)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
        }
        handle = connection
        sqlite3_extended_result_codes(handle, 1)
        switch configuration.busyMode {
        case .immediateError: break
        case .timeout(let seconds): sqlite3_busy_timeout(handle, Int32(seconds * 1000))
        case .callback(let callback):
            let box = Unmanaged.passRetained(BusyBox(callback))
            busy = box
            sqlite3_busy_handler(
                handle,
                { context, tries in
                    guard let context else { return 0 }
                    return Unmanaged<BusyBox>.fromOpaque(context).takeUnretainedValue().callback(Int(tries)) ? 1 : 0
                }, box.toOpaque())
        }
        do {
            if configuration.foreignKeysEnabled { try execute(sql: "PRAGMA foreign_keys = ON") }
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    private var closed = false

    /// Finalizes the cached statements and closes the connection (SQLite closes it once the last
    /// statement goes: `sqlite3_close_v2`).
    func close() {
        guard !closed else { return }
        closed = true
        statements.removeAll()
        sqlite3_close_v2(handle)
        busy?.release()
        busy = nil
    }

    // MARK: - Statements

    /// Runs every statement in `sql` in turn, taking their `?` arguments from `arguments` in order.
    public func execute(sql: String, arguments: StatementArguments = []) throws {
        var remaining = arguments.values[...]
        try sql.withCString { start in
            var next: UnsafePointer<CChar>? = start
            while let current = next, current.pointee != 0 {
                var prepared: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v2(handle, current, -1, &prepared, &tail)
                guard code == SQLITE_OK else { throw error(code, sql: sql) }
                next = tail
                // Only white space or a comment was left.
                guard let prepared else { continue }
                let statement = Statement(handle: prepared, sql: sql, database: self)
                let wanted = Int(sqlite3_bind_parameter_count(prepared))
                guard remaining.count >= wanted else {
                    throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "wrong number of statement arguments", sql: sql)
                }
                try statement.execute(arguments: StatementArguments(values: Array(remaining.prefix(wanted))))
                remaining = remaining.dropFirst(wanted)
            }
        }
        guard remaining.isEmpty else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "wrong number of statement arguments: \(remaining.count) left over", sql: sql)
        }
    }

    /// One statement, prepared now.
    public func makeStatement(sql: String) throws -> Statement {
        var prepared: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, 0, &prepared, nil)
        guard code == SQLITE_OK else { throw error(code, sql: sql) }
        guard let prepared else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "no statement", sql: sql) }
        return Statement(handle: prepared, sql: sql, database: self)
    }

    /// One statement, prepared once per connection and kept: for what runs often.
    public func cachedStatement(sql: String) throws -> Statement {
        if let statement = statements[sql] { return statement }
        var prepared: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
        guard code == SQLITE_OK else { throw error(code, sql: sql) }
        guard let prepared else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "no statement", sql: sql) }
        let statement = Statement(handle: prepared, sql: sql, database: self)
        statements[sql] = statement
        return statement
    }

    /// Rows changed by the last `INSERT`, `UPDATE` or `DELETE`.
    public var changesCount: Int { Int(sqlite3_changes64(handle)) }
    /// The rowid of the last row inserted.
    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    /// Whether a transaction is open.
    public var isInsideTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    public func inTransaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        try execute(sql: "BEGIN \(kind.rawValue) TRANSACTION")
        let result: T
        do {
            result = try body()
        } catch {
            rollback()
            throw error
        }
        do {
            try execute(sql: "COMMIT TRANSACTION")
        } catch {
            rollback()
            throw error
        }
        return result
    }

    private func rollback() {
        if isInsideTransaction { try? execute(sql: "ROLLBACK TRANSACTION") }
    }

    public enum TransactionKind: String, Sendable {
        case deferred = "DEFERRED"
        case immediate = "IMMEDIATE"
        case exclusive = "EXCLUSIVE"
    }

    /// Frees what this connection caches (its pages, its prepared statements).
    public func releaseMemory() {
        statements.removeAll()
        sqlite3_db_release_memory(handle)
    }

    /// The error of a failed call, with SQLite's message for this connection.
    func error(_ code: Int32, sql: String?) -> DatabaseError {
        let extended = sqlite3_extended_errcode(handle)
        let message = String(cString: sqlite3_errmsg(handle))
        return DatabaseError(resultCode: ResultCode(rawValue: extended & 0xFF == code & 0xFF ? extended : code), message: message, sql: sql)
    }
}

/// A busy callback in a class, for SQLite's `void *` context.
private final class BusyBox {
    let callback: @Sendable (Int) -> Bool
    init(_ callback: @escaping @Sendable (Int) -> Bool) { self.callback = callback }
}

extension StatementArguments {
    init(values: [DatabaseValue]) {
        self.init([])
        self.values = values
    }
}

extension Database {
    /// Adds columns to `table`, each given as its name and its type (`"folder TEXT"`), as
    /// `ALTER TABLE "table" ADD COLUMN "folder" TEXT`.
    public func add(columns: [String], to table: String) throws {
        for column in columns {
            let parts = column.split(separator: " ", maxSplits: 1)
            try execute(sql: "ALTER TABLE \"\(table)\" ADD COLUMN \"\(parts[0])\"" + (parts.count > 1 ? " \(parts[1])" : ""))
        }
    }
}
