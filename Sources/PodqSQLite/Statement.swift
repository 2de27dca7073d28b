import CSQLite

/// A prepared statement of a ``Database``. Used on its connection's thread only, like the connection.
public final class Statement {
    let handle: OpaquePointer
    public let sql: String
    private unowned let database: Database
    /// The result's columns: names, and their positions by lowercased name.
    private(set) lazy var columns = Columns(names: (0..<sqlite3_column_count(handle)).map { String(cString: sqlite3_column_name(handle, $0)) })

    init(handle: OpaquePointer, sql: String, database: Database) {
        self.handle = handle
        self.sql = sql
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    public var columnNames: [String] { columns.names }

    /// Runs the statement to its end (an `UPDATE`, an `INSERT`, a `PRAGMA x = y`).
    public func execute(arguments: StatementArguments = []) throws {
        try start(arguments)
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Resets the statement and binds `arguments`, one per `?`: more or fewer is an error.
    func start(_ arguments: StatementArguments) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        let wanted = Int(sqlite3_bind_parameter_count(handle))
        guard arguments.values.count == wanted else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "wrong number of statement arguments: \(arguments.values.count), not \(wanted)", sql: sql)
        }
        for (offset, value) in arguments.values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let value): code = sqlite3_bind_int64(handle, index, value)
            case .real(let value): code = sqlite3_bind_double(handle, index, value)
            case .text(let text):
                var text = text
                code = text.withUTF8 { bytes in
                    // An empty text needs a pointer all the same: SQLite binds NULL for none.
                    let start = UnsafeRawPointer(bytes.baseAddress ?? Self.empty.utf8Start).assumingMemoryBound(to: CChar.self)
                    return sqlite3_bind_text(handle, index, start, Int32(bytes.count), podq_sqlite_transient())
                }
            case .blob(let bytes):
                code = bytes.withUnsafeBytes {
                    sqlite3_bind_blob(handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), podq_sqlite_transient())
                }
            }
            guard code == SQLITE_OK else { throw database.error(code, sql: sql) }
        }
    }

    /// Leaves the statement ready to run again (and releases its read of the database).
    func reset() { sqlite3_reset(handle) }

    private static let empty: StaticString = ""

    /// One step: true when a row is there to read.
    func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            sqlite3_reset(handle)
            throw database.error(code, sql: sql)
        }
    }

    /// The current row's value at `index`.
    func value(at index: Int) -> DatabaseValue {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }
}

/// A result's column names, with their positions by lowercased name (SQLite's names are case-insensitive).
final class Columns {
    let names: [String]
    let positions: [String: Int]

    init(names: [String]) {
        self.names = names
        var positions: [String: Int] = [:]
        for (index, name) in names.enumerated().reversed() {
            positions[name.lowercased()] = index
            positions[name] = index
        }
        self.positions = positions
    }

    func index(of name: String) -> Int? { positions[name] ?? positions[name.lowercased()] }
}
