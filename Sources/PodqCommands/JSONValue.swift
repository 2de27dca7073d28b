/// A JSON value written by hand: corelibs' `JSONSerialization` spent half of `podq parse`'s time
/// (bridging every value), and this keeps the keys in a fixed, sorted order.
enum JSONValue {
    case string(String)
    case int(Int64)
    case null
    case array([JSONValue])
    /// Written with its keys sorted.
    case object([String: JSONValue])

    static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
    static func optional<N: BinaryInteger>(_ n: N?) -> JSONValue { n.map { .int(Int64($0)) } ?? .null }

    /// The compact JSON text.
    var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    func write(to out: inout String) {
        switch self {
        case .string(let s): Self.quote(s, into: &out)
        case .int(let n): out += String(n)
        case .null: out += "null"
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            for (i, key) in fields.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                Self.quote(key, into: &out)
                out += ":"
                fields[key]!.write(to: &out)
            }
            out += "}"
        }
    }

    static func quote(_ s: String, into out: inout String) {
        out += "\""
        var plain = true
        for b in s.utf8 where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
            plain = false
            break
        }
        if plain {
            out += s
        } else {
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

import Foundation
