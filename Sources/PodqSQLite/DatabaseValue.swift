/// A value as SQLite stores it: one of its five storage classes.
public enum DatabaseValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public var isNull: Bool { self == .null }

    /// As SQL would write it (`NULL`, `42`, `'text'`): what an error says a column holds.
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let text): "'" + text.replacing("'", with: "''") + "'"
        case .blob(let bytes): "a blob of \(bytes.count) bytes"
        }
    }
}

/// A Swift type stored in one column. The conversions are exact: a column of another kind (text where an
/// integer is wanted, a real with a fraction where an integer is wanted) gives nil, never a silent 0.
public protocol DatabaseValueConvertible {
    var databaseValue: DatabaseValue { get }
    static func fromDatabaseValue(_ value: DatabaseValue) -> Self?
}

extension DatabaseValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> DatabaseValue? { value }
}

extension Int64: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self) }
    @inlinable
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Int64? {
        switch value {
        case .integer(let value): value
        // What SQLite answers for an INTEGER column that holds 3.0 (a REAL affinity computation).
        case .real(let value) where value.rounded(.towardZero) == value && value.magnitude < 0x1p63: Int64(value)
        default: nil
        }
    }
}

extension Int: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    @inlinable
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Int? { Int64.fromDatabaseValue(value).map(Int.init) }
}

extension Int32: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Int32? { Int64.fromDatabaseValue(value).flatMap(Int32.init(exactly:)) }
}

extension Double: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .real(self) }
    @inlinable
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Double? {
        switch value {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
}

extension Bool: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
    @inlinable
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Bool? {
        switch value {
        case .integer(let value): value != 0
        case .real(let value): value != 0
        default: nil
        }
    }
}

extension String: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(self) }
    @inlinable
    public static func fromDatabaseValue(_ value: DatabaseValue) -> String? {
        if case .text(let text) = value { return text }
        return nil
    }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
    /// NULL is `.some(nil)`; a value of another kind is nil, as for `Wrapped`.
    @inlinable
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Wrapped?? {
        if case .null = value { return .some(nil) }
        return Wrapped.fromDatabaseValue(value).map { .some($0) }
    }
}

/// The values bound to a statement's `?` parameters, in order.
public struct StatementArguments: Sendable, Equatable, ExpressibleByArrayLiteral {
    public var values: [DatabaseValue]

    public init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
        values = elements.map { $0?.databaseValue ?? .null }
    }

    public init(_ elements: [(any DatabaseValueConvertible)?]) {
        values = elements.map { $0?.databaseValue ?? .null }
    }

    public init<S: Sequence>(_ elements: S) where S.Element: DatabaseValueConvertible {
        values = elements.map(\.databaseValue)
    }

    public var isEmpty: Bool { values.isEmpty }

    public static func += (lhs: inout StatementArguments, rhs: StatementArguments) {
        lhs.values += rhs.values
    }
}
