import CSQLite

/// A result code of SQLite's (`SQLITE_BUSY`…), primary or extended.
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary code of an extended one (`SQLITE_BUSY_SNAPSHOT` → `SQLITE_BUSY`).
    public var primary: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

    public static let SQLITE_ERROR = ResultCode(rawValue: 1)
    public static let SQLITE_INTERNAL = ResultCode(rawValue: 2)
    public static let SQLITE_PERM = ResultCode(rawValue: 3)
    public static let SQLITE_ABORT = ResultCode(rawValue: 4)
    public static let SQLITE_BUSY = ResultCode(rawValue: 5)
    public static let SQLITE_LOCKED = ResultCode(rawValue: 6)
    public static let SQLITE_NOMEM = ResultCode(rawValue: 7)
    public static let SQLITE_READONLY = ResultCode(rawValue: 8)
    public static let SQLITE_IOERR = ResultCode(rawValue: 10)
    public static let SQLITE_CORRUPT = ResultCode(rawValue: 11)
    public static let SQLITE_FULL = ResultCode(rawValue: 13)
    public static let SQLITE_CANTOPEN = ResultCode(rawValue: 14)
    public static let SQLITE_CONSTRAINT = ResultCode(rawValue: 19)
    public static let SQLITE_MISMATCH = ResultCode(rawValue: 20)
    public static let SQLITE_MISUSE = ResultCode(rawValue: 21)
    public static let SQLITE_NOTADB = ResultCode(rawValue: 26)

    /// SQLite's own words for the code ("database is locked").
    public var description: String { String(cString: sqlite3_errstr(rawValue)) }
}

/// A failure SQLite reported, or a value that is not what the code reading it expects.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// The primary result code (`SQLITE_BUSY` also for `SQLITE_BUSY_SNAPSHOT`).
    public var resultCode: ResultCode { extendedResultCode.primary }
    public let extendedResultCode: ResultCode
    /// SQLite's message for the connection (`no such table: x`), or this layer's.
    public let message: String?
    /// The statement that failed, when there was one.
    public let sql: String?

    public init(resultCode: ResultCode, message: String? = nil, sql: String? = nil) {
        self.extendedResultCode = resultCode
        self.message = message
        self.sql = sql
    }

    public var description: String {
        var text = "SQLite error \(resultCode.rawValue): " + (message ?? resultCode.description)
        if let sql { text += " - while executing `\(sql)`" }
        return text
    }
}
