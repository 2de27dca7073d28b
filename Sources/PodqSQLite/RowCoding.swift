/// Decodes a record's stored properties from the columns of their names. Only flat records: each
/// property is a value of one column (a number, a text, a Boolean, or an optional of one); a column
/// that is missing is nil for an optional property.
struct RowDecoder: Decoder {
    let row: Row
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Container(row: row))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw Self.flat(codingPath) }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw Self.flat(codingPath) }

    static func flat(_ path: [any CodingKey]) -> DecodingError {
        .typeMismatch(Row.self, .init(codingPath: path, debugDescription: "a record read from a row has one column per property"))
    }

    private struct Container<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let row: Row
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { row.columnNames.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { row.databaseValue(named: key.stringValue) != nil }
        func decodeNil(forKey key: Key) throws -> Bool { (row.databaseValue(named: key.stringValue) ?? .null).isNull }

        private func value<T: DatabaseValueConvertible>(_ key: Key) throws -> T {
            do { return try row.decode(forKey: key.stringValue) } catch {
                throw DecodingError.typeMismatch(T.self, .init(codingPath: [key], debugDescription: "\(error)"))
            }
        }

        private func integer<T: FixedWidthInteger>(_ key: Key) throws -> T {
            let wide: Int64 = try value(key)
            guard let narrow = T(exactly: wide) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "\(wide) does not fit a \(T.self)")
            }
            return narrow
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try value(key) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try value(key) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try value(key) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try value(key) as Double) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            guard let convertible = T.self as? any DatabaseValueConvertible.Type else {
                // A type of one value (an enum with a raw value): from the column's value.
                return try T(from: ValueDecoder(value: row.databaseValue(named: key.stringValue) ?? .null, key: key))
            }
            return try decodeConvertible(convertible, key) as! T
        }

        private func decodeConvertible<T: DatabaseValueConvertible>(_ type: T.Type, _ key: Key) throws -> T { try value(key) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw RowDecoder.flat([key])
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw RowDecoder.flat([key]) }
        func superDecoder() throws -> any Decoder { throw RowDecoder.flat([]) }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw RowDecoder.flat([key]) }
    }
}

/// Encodes a record's stored properties as the columns of their names, nil as NULL (so that an update
/// clears a column), as ``RowDecoder`` reads them.
final class RowEncoder: Encoder {
    var storage = PersistenceContainer()
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(Container(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { preconditionFailure("a record written to a row has one column per property") }
    func singleValueContainer() -> any SingleValueEncodingContainer { preconditionFailure("a record written to a row has one column per property") }

    private struct Container<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: RowEncoder
        var codingPath: [any CodingKey] { [] }

        private func put(_ value: DatabaseValue, _ key: Key) { encoder.storage[key.stringValue] = value }

        func encodeNil(forKey key: Key) throws { put(.null, key) }
        func encode(_ value: Bool, forKey key: Key) throws { put(value.databaseValue, key) }
        func encode(_ value: String, forKey key: Key) throws { put(value.databaseValue, key) }
        func encode(_ value: Double, forKey key: Key) throws { put(value.databaseValue, key) }
        func encode(_ value: Float, forKey key: Key) throws { put(Double(value).databaseValue, key) }
        func encode(_ value: Int, forKey key: Key) throws { put(value.databaseValue, key) }
        func encode(_ value: Int8, forKey key: Key) throws { put(.integer(Int64(value)), key) }
        func encode(_ value: Int16, forKey key: Key) throws { put(.integer(Int64(value)), key) }
        func encode(_ value: Int32, forKey key: Key) throws { put(.integer(Int64(value)), key) }
        func encode(_ value: Int64, forKey key: Key) throws { put(.integer(value), key) }
        func encode(_ value: UInt, forKey key: Key) throws { put(.integer(try Self.wide(value, key)), key) }
        func encode(_ value: UInt8, forKey key: Key) throws { put(.integer(Int64(value)), key) }
        func encode(_ value: UInt16, forKey key: Key) throws { put(.integer(Int64(value)), key) }
        func encode(_ value: UInt32, forKey key: Key) throws { put(.integer(Int64(value)), key) }
        func encode(_ value: UInt64, forKey key: Key) throws { put(.integer(try Self.wide(value, key)), key) }

        private static func wide<T: BinaryInteger>(_ value: T, _ key: Key) throws -> Int64 {
            guard let wide = Int64(exactly: value) else {
                throw EncodingError.invalidValue(value, .init(codingPath: [key], debugDescription: "\(value) does not fit SQLite's integers"))
            }
            return wide
        }

        func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            if let convertible = value as? any DatabaseValueConvertible { return put(convertible.databaseValue, key) }
            // A type of one value (an enum with a raw value): its value in the column.
            let single = ValueEncoder(key: key)
            try value.encode(to: single)
            guard let stored = single.value else {
                throw EncodingError.invalidValue(value, .init(codingPath: [key], debugDescription: "a record written to a row has one column per property"))
            }
            put(stored, key)
        }

        // Synthesized Encodable skips a nil optional; a row writes it as NULL.
        func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { put(value.databaseValue, key) }
        func encodeIfPresent(_ value: String?, forKey key: Key) throws { put(value.databaseValue, key) }
        func encodeIfPresent(_ value: Double?, forKey key: Key) throws { put(value.databaseValue, key) }
        func encodeIfPresent(_ value: Float?, forKey key: Key) throws { put(value.map(Double.init).databaseValue, key) }
        func encodeIfPresent(_ value: Int?, forKey key: Key) throws { put(value.databaseValue, key) }
        func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { put(value.map(Int64.init).databaseValue, key) }
        func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { put(value.map(Int64.init).databaseValue, key) }
        func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { put(value.databaseValue, key) }
        func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { put(value.databaseValue, key) }
        func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try value.map { try encode($0, forKey: key) } ?? put(.null, key) }
        func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { put(value.map(Int64.init).databaseValue, key) }
        func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { put(value.map(Int64.init).databaseValue, key) }
        func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { put(value.map(Int64.init).databaseValue, key) }
        func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try value.map { try encode($0, forKey: key) } ?? put(.null, key) }
        func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
            guard let value else { return put(.null, key) }
            try encode(value, forKey: key)
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            preconditionFailure("a record written to a row has one column per property")
        }
        func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            preconditionFailure("a record written to a row has one column per property")
        }
        func superEncoder() -> any Encoder { preconditionFailure("a record written to a row has one column per property") }
        func superEncoder(forKey key: Key) -> any Encoder { preconditionFailure("a record written to a row has one column per property") }
    }
}

/// Decodes a type of one value (an enum with a raw value) from one column's value.
private struct ValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: DatabaseValue
    let key: any CodingKey
    var codingPath: [any CodingKey] { [key] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> { throw RowDecoder.flat(codingPath) }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw RowDecoder.flat(codingPath) }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { value.isNull }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard let convertible = T.self as? any DatabaseValueConvertible.Type else { throw RowDecoder.flat(codingPath) }
        guard let decoded = convertible.fromDatabaseValue(value) else {
            throw DecodingError.typeMismatch(
                T.self, .init(codingPath: codingPath, debugDescription: "column \(key.stringValue) holds \(value), not a \(T.self)"))
        }
        return decoded as! T
    }
}

/// Encodes a type of one value (an enum with a raw value) as one column's value.
private final class ValueEncoder: Encoder, SingleValueEncodingContainer {
    var value: DatabaseValue?
    let key: any CodingKey
    init(key: any CodingKey) { self.key = key }
    var codingPath: [any CodingKey] { [key] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        preconditionFailure("a record written to a row has one column per property")
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { preconditionFailure("a record written to a row has one column per property") }
    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() throws { value = .null }
    func encode<T: Encodable>(_ value: T) throws {
        guard let convertible = value as? any DatabaseValueConvertible else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "a record written to a row has one column per property"))
        }
        self.value = convertible.databaseValue
    }
}
