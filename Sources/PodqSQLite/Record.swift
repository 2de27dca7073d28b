/// A type stored in a table of its own, whose rows have an `id` primary key.
public protocol TableRecord {
    static var databaseTableName: String { get }
}

/// A type read from a row.
public protocol FetchableRecord {
    init(row: Row) throws
}

extension FetchableRecord where Self: Decodable {
    /// Each stored property from the column of its name (``RowDecoder``).
    public init(row: Row) throws {
        try self.init(from: RowDecoder(row: row))
    }
}

extension FetchableRecord {
    public static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> [Self] {
        try Row.fetchAll(db.makeStatement(sql: sql), arguments: arguments, Self.init(row:))
    }

    public static func fetchOne(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> Self? {
        let cursor = try RowCursor(statement: db.makeStatement(sql: sql), arguments: arguments)
        return try cursor.next().map(Self.init(row:))
    }
}

extension FetchableRecord where Self: TableRecord {
    /// Every row of the table, in the order of their ids.
    public static func fetchAll(_ db: Database) throws -> [Self] {
        try fetchAll(db, sql: "SELECT * FROM \"\(databaseTableName)\" ORDER BY id")
    }

    /// The row whose id is `key`.
    public static func fetchOne(_ db: Database, key: Int64) throws -> Self? {
        try fetchOne(db, sql: "SELECT * FROM \"\(databaseTableName)\" WHERE id = ?", arguments: [key])
    }
}

/// The columns a record writes, in the order it gives them.
public struct PersistenceContainer {
    public private(set) var columns: [(name: String, value: DatabaseValue)] = []

    public init() {}

    /// A column's value; setting nil takes the column out (the id of a row SQLite numbers).
    public subscript(name: String) -> (any DatabaseValueConvertible)? {
        get { columns.first { $0.name == name }?.value }
        set {
            if let index = columns.firstIndex(where: { $0.name == name }) {
                if let newValue { columns[index].value = newValue.databaseValue } else { columns.remove(at: index) }
            } else if let newValue {
                columns.append((name, newValue.databaseValue))
            }
        }
    }
}

/// A type written to its table.
public protocol EncodableRecord {
    func encode(to container: inout PersistenceContainer) throws
}

extension EncodableRecord where Self: Encodable {
    /// Each stored property to the column of its name, nil as NULL (``RowEncoder``).
    public func encode(to container: inout PersistenceContainer) throws {
        let encoder = RowEncoder()
        try encode(to: encoder)
        for (name, value) in encoder.storage.columns { container[name] = value }
    }
}

public protocol PersistableRecord: EncodableRecord, TableRecord {}

extension PersistableRecord {
    private func columns() throws -> [(name: String, value: DatabaseValue)] {
        var container = PersistenceContainer()
        try encode(to: &container)
        return container.columns
    }

    /// Adds the row (its id too, when it has one).
    public func insert(_ db: Database) throws {
        let columns = try columns()
        let names = columns.map { "\"\($0.name)\"" }.joined(separator: ", ")
        let marks = columns.map { _ in "?" }.joined(separator: ", ")
        try db.cachedStatement(sql: "INSERT INTO \"\(Self.databaseTableName)\" (\(names)) VALUES (\(marks))")
            .execute(arguments: StatementArguments(values: columns.map(\.value)))
    }

    /// Writes every column of the row with this id.
    /// - Throws: a ``DatabaseError`` when there is no such row.
    public func update(_ db: Database) throws {
        let columns = try columns()
        guard let id = columns.first(where: { $0.name == "id" })?.value else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "a \(Self.databaseTableName) without an id cannot be updated")
        }
        let others = columns.filter { $0.name != "id" }
        let assignments = others.map { "\"\($0.name)\" = ?" }.joined(separator: ", ")
        try db.cachedStatement(sql: "UPDATE \"\(Self.databaseTableName)\" SET \(assignments) WHERE id = ?")
            .execute(arguments: StatementArguments(values: others.map(\.value) + [id]))
        if db.changesCount == 0 {
            throw DatabaseError(resultCode: .SQLITE_NOTFOUND, message: "no \(Self.databaseTableName) with id \(id)")
        }
    }

    /// Deletes the row with this id; false when there was none.
    @discardableResult
    public func delete(_ db: Database) throws -> Bool {
        guard let id = try columns().first(where: { $0.name == "id" })?.value else { return false }
        try db.cachedStatement(sql: "DELETE FROM \"\(Self.databaseTableName)\" WHERE id = ?").execute(arguments: StatementArguments(values: [id]))
        return db.changesCount > 0
    }
}

extension ResultCode {
    public static let SQLITE_NOTFOUND = ResultCode(rawValue: 12)
}

extension TableRecord {
    /// Deletes the row whose id is `key`; false when there was none.
    @discardableResult
    public static func deleteOne(_ db: Database, key: Int64) throws -> Bool {
        try db.cachedStatement(sql: "DELETE FROM \"\(databaseTableName)\" WHERE id = ?").execute(arguments: [key])
        return db.changesCount > 0
    }
}

extension PersistableRecord {
    /// Writes only the columns whose values differ from `before` (the same row as it was read); nothing
    /// when none does. True when something was written.
    @discardableResult
    public func updateChanges(_ db: Database, from before: Self) throws -> Bool {
        let now = try columns()
        let then = try before.columns()
        guard let id = now.first(where: { $0.name == "id" })?.value else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "a \(Self.databaseTableName) without an id cannot be updated")
        }
        let changed = now.filter { column in column.name != "id" && then.first { $0.name == column.name }?.value != column.value }
        guard !changed.isEmpty else { return false }
        let assignments = changed.map { "\"\($0.name)\" = ?" }.joined(separator: ", ")
        try db.execute(
            sql: "UPDATE \"\(Self.databaseTableName)\" SET \(assignments) WHERE id = ?", arguments: StatementArguments(values: changed.map(\.value) + [id]))
        return db.changesCount > 0
    }
}

extension Database {
    /// The names of `table`'s columns, in their order.
    public func columnNames(in table: String) throws -> [String] {
        try String.fetchAll(self, sql: "SELECT name FROM pragma_table_info(?) ORDER BY cid", arguments: [table])
    }
}
