import FoundationEssentials

/// Any JSON value, read with FoundationEssentials' `JSONDecoder` (there is no `JSONSerialization`
/// without the rest of Foundation). ``any`` gives the shapes `JSONSerialization` gave: `[String: Any]`,
/// `[Any]`, `String`, `Bool`, a number as `Double`, `null` as nil.
public enum JSONTree: Decodable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONTree])
    case object([String: JSONTree])

    /// The JSON in `bytes`, a top-level fragment too; nil when it is not JSON.
    public static func parse(_ bytes: some Sequence<UInt8>) -> JSONTree? {
        try? JSONDecoder().decode(JSONTree.self, from: Data(bytes))
    }

    /// The value as `JSONSerialization` gave it; `null` is nil.
    public static func any(_ bytes: some Sequence<UInt8>) -> Any? { parse(bytes)?.any }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONTree].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONTree].self))
        }
    }

    public var any: Any? {
        switch self {
        case .null: nil
        case .bool(let value): value
        case .number(let value): value
        case .string(let value): value
        case .array(let values): values.map { $0.any as Any }
        case .object(let members): members.compactMapValues { $0.any }
        }
    }

    /// A number as JSON writes it: integral ones without a fraction ("3", not "3.0").
    public static func text(of number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        return "\(number)"
    }
}
