import PodqBase
import PodqCore

/// A JSON value written by hand: corelibs' `JSONSerialization` spent half of `podq parse`'s time
/// (bridging every value), and this keeps the keys in a fixed, sorted order.
package enum JSONValue {
    case string(String)
    case int(Int64)
    /// A number that may have a fraction (seconds into an episode); a finite one, else `null`.
    case number(Double)
    case null
    case bool(Bool)
    case array([JSONValue])
    /// Written with its keys sorted.
    case object([String: JSONValue])

    package static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
    package static func optional<N: BinaryInteger>(_ n: N?) -> JSONValue { n.map { .int(Int64($0)) } ?? .null }

    /// The compact JSON text.
    package var text: String {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the compact JSON text as UTF-8 bytes (no String is grown piece by piece).
    @_optimize(speed)
    package func write(to out: inout [UInt8]) {
        switch self {
        case .string(let s): Self.quote(s, into: &out)
        case .int(let n): out.append(contentsOf: String(n).utf8)
        case .number(let x): out.append(contentsOf: (x.isFinite ? JSONTree.text(of: x) : "null").utf8)
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (i, key) in fields.keys.sorted().enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.quote(key, into: &out)
                out.append(UInt8(ascii: ":"))
                fields[key]!.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// `s` as a JSON string: runs of plain bytes are copied whole, only `"`, `\\` and controls escaped.
    /// Characters ``SafeText/isUnsafe(_:)`` names (C1 controls, bidi overrides…) are escaped as
    /// `\uXXXX`, so the JSON keeps them but a terminal never gets them raw; credentials in URLs are
    /// redacted.
    @_optimize(speed)
    package static func quote(_ text: String, into out: inout [UInt8]) {
        var s = text
        // One pass: an `@` may be a URL's login (redacted first); a byte from 0x7F up may start an unsafe character.
        let (at, high) = s.withUTF8 { bytes -> (Bool, Bool) in
            var at = false
            var high = false
            for b in bytes {
                if b >= 0x7F { high = true } else if b == UInt8(ascii: "@") { at = true }
            }
            return (at, high)
        }
        if at { s = SafeText.redactingCredentials(s) }
        if high {
            quoteScalars(s, into: &out)
            return
        }
        out.append(UInt8(ascii: "\""))
        s.withUTF8 { bytes in
            var start = 0
            for i in 0..<bytes.count {
                let b = bytes[i]
                guard b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
                escape(b, into: &out)
                start = i + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func quoteScalars(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let hex = Array("0123456789abcdef".utf8)
        for scalar in s.unicodeScalars {
            if scalar.value < 0x80 && scalar.value != 0x7F {
                let b = UInt8(scalar.value)
                if b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") { escape(b, into: &out) } else { out.append(b) }
            } else if SafeText.isUnsafe(scalar) {
                let v = Int(scalar.value)
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), hex[(v >> 12) & 15], hex[(v >> 8) & 15], hex[(v >> 4) & 15], hex[v & 15]])
            } else {
                UTF8.encode(scalar) { out.append($0) }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func escape(_ b: UInt8, into out: inout [UInt8]) {
        switch b {
        case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
        case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        default:
            let hex = Array("0123456789abcdef".utf8)
            out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 15)]])
        }
    }
}
