/// A row of a result. One from ``Row/fetchAll(_:sql:arguments:)`` or ``Row/fetchOne(_:sql:arguments:)``
/// holds its values; one handed over by a ``RowCursor`` reads its statement's current row and is good
/// only until the cursor moves.
public struct Row {
    private enum Storage {
        case values([DatabaseValue])
        case live(Statement)
    }

    private let storage: Storage
    private let columns: Columns

    init(copying statement: Statement) {
        let count = statement.columns.names.count
        storage = .values((0..<count).map(statement.value(at:)))
        columns = statement.columns
    }

    init(live statement: Statement) {
        storage = .live(statement)
        columns = statement.columns
    }

    public var count: Int { columns.names.count }
    public var columnNames: [String] { columns.names }

    /// The value at `index` as SQLite holds it.
    public func databaseValue(atIndex index: Int) -> DatabaseValue {
        switch storage {
        case .values(let values): values[index]
        case .live(let statement): statement.value(at: index)
        }
    }

    /// The value of the column `name` (any case), nil when there is no such column.
    public func databaseValue(named name: String) -> DatabaseValue? {
        columns.index(of: name).map(databaseValue(atIndex:))
    }

    /// The index of the column `name` (any case), nil when there is no such column.
    public func index(ofColumn name: String) -> Int? { columns.index(of: name) }

    /// The value at `index` as `T`; a value of another kind (text for a number, NULL for a
    /// non-optional) is an error that names the column and what it holds.
    ///
    /// Inlinable, so each caller's `T` is known where it is compiled: a generic call across modules
    /// looked `T`'s metadata and conformance up at every value (`Optional<String>`'s witness table,
    /// instantiated again each time), which was most of a row's read (docs/PERFORMANCE.md).
    @inlinable
    public func decode<T: DatabaseValueConvertible>(_ type: T.Type = T.self, atIndex index: Int) throws -> T {
        let value = databaseValue(atIndex: index)
        guard let decoded = T.fromDatabaseValue(value) else { throw mismatch(value, atIndex: index, wanted: "\(T.self)") }
        return decoded
    }

    /// The error of a value of another kind than the column's reader wants.
    @usableFromInline
    func mismatch(_ value: DatabaseValue, atIndex index: Int, wanted: String) -> DatabaseError {
        DatabaseError(resultCode: .SQLITE_MISMATCH, message: "column \(columns.names[index]) holds \(value), not a \(wanted)")
    }

    /// The column `name` as `T`: a missing column is NULL (nil for an optional), and a value of another
    /// kind is an error naming the column.
    @inlinable
    public func decode<T: DatabaseValueConvertible>(_ type: T.Type = T.self, forKey name: String) throws -> T {
        guard let index = index(ofColumn: name) else {
            if let null = T.fromDatabaseValue(.null) { return null }
            throw DatabaseError(resultCode: .SQLITE_MISMATCH, message: "no column \(name)")
        }
        return try decode(atIndex: index)
    }

    /// The value at `index` as `T`, for columns whose kind the schema guarantees: a value of another
    /// kind stops the program, as a broken invariant. Where it may happen, ``decode(_:atIndex:)``.
    @inlinable
    public subscript<T: DatabaseValueConvertible>(_ index: Int) -> T {
        do { return try decode(atIndex: index) } catch { preconditionFailure("\(error)") }
    }

    /// The column `name` as `T`, as ``subscript(_:)-(Int)``: a missing column is NULL.
    @inlinable
    public subscript<T: DatabaseValueConvertible>(_ name: String) -> T {
        do { return try decode(forKey: name) } catch { preconditionFailure("\(error)") }
    }

    /// A copy that outlives its cursor.
    public func copy() -> Row {
        switch storage {
        case .values: self
        case .live(let statement): Row(copying: statement)
        }
    }
}

/// Rows read one at a time from a statement: nothing is copied but what is read.
public final class RowCursor {
    private let statement: Statement
    private var done = false

    init(statement: Statement, arguments: StatementArguments) throws {
        self.statement = statement
        try statement.start(arguments)
    }

    deinit {
        if !done { statement.reset() }
    }

    /// The next row, valid until the next call; nil at the end.
    public func next() throws -> Row? {
        guard !done else { return nil }
        guard try statement.step() else {
            done = true
            statement.reset()
            return nil
        }
        return Row(live: statement)
    }
}

extension Row {
    public static func fetchCursor(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> RowCursor {
        try RowCursor(statement: db.makeStatement(sql: sql), arguments: arguments)
    }

    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments = []) throws -> RowCursor {
        try RowCursor(statement: statement, arguments: arguments)
    }

    public static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> [Row] {
        try fetchAll(db.makeStatement(sql: sql), arguments: arguments)
    }

    public static func fetchAll(_ statement: Statement, arguments: StatementArguments = []) throws -> [Row] {
        try fetchAll(statement, arguments: arguments) { $0.copy() }
    }

    /// Each row made into a `T` while it is read: nothing copied between.
    public static func fetchAll<T>(_ statement: Statement, arguments: StatementArguments = [], _ make: (Row) throws -> T) throws -> [T] {
        let cursor = try RowCursor(statement: statement, arguments: arguments)
        var result: [T] = []
        while let row = try cursor.next() { result.append(try make(row)) }
        return result
    }

    public static func fetchOne(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> Row? {
        try fetchOne(db.makeStatement(sql: sql), arguments: arguments)
    }

    public static func fetchOne(_ statement: Statement, arguments: StatementArguments = []) throws -> Row? {
        let cursor = try RowCursor(statement: statement, arguments: arguments)
        return try cursor.next()?.copy()
    }
}

extension DatabaseValueConvertible {
    /// The first column of every row.
    public static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> [Self] {
        try Row.fetchAll(db.makeStatement(sql: sql), arguments: arguments) { try $0.decode(atIndex: 0) }
    }

    /// The first column of the first row; nil when there is no row or it is NULL.
    public static func fetchOne(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> Self? {
        let cursor = try RowCursor(statement: db.makeStatement(sql: sql), arguments: arguments)
        guard let row = try cursor.next() else { return nil }
        return try row.decode(Self?.self, atIndex: 0)
    }

    public static func fetchSet(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> Set<Self> where Self: Hashable {
        Set(try fetchAll(db, sql: sql, arguments: arguments))
    }
}
