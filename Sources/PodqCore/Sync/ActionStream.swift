import FoundationEssentials
import Glibc
import PodqBase

/// Reads a server's episode-action answer (`{"actions": [ … ], "timestamp": N}`) as its bytes arrive,
/// one action at a time: only the action being read is held, never the answer (a long-lived account
/// answers 120,000 actions, over 32 MB). Each complete element of `actions` is handed over as its
/// JSON bytes; the top-level `timestamp` is kept. Anything else at the top level is skipped.
///
/// A byte-level state machine over JSON's structure (strings and their escapes, nesting): it does not
/// check the JSON, it finds where each element begins and ends; the element's own decoder checks it.
/// An element larger than ``elementLimit`` is skipped (counted in ``oversized``), never held.
public struct ActionStream: Sendable {
    /// The most one action may weigh.
    public static let elementLimit = 1 << 20

    /// What is being read.
    private enum Place: Sendable {
        /// Before the top-level object.
        case start
        /// In the top-level object, between its members (a key comes next, or the end).
        case members
        /// In a top-level key's string.
        case key
        /// After a key, before its `:` and value.
        case colon
        /// In a top-level value other than `actions` (skipped; `timestamp` kept).
        case value
        /// In the `actions` array, between elements.
        case array
        /// In one element of `actions`.
        case element
        /// After the top-level object.
        case done
    }

    private var place = Place.start
    private var key: [UInt8] = []
    private var inString = false
    private var escaped = false
    /// Nesting inside the current value or element (0: at its own level).
    private var depth = 0
    private var buffer: [UInt8] = []
    private var bufferOverflow = false
    /// The top-level `timestamp`'s text, when one came.
    public private(set) var timestampText: String?
    /// Elements skipped for their size.
    public private(set) var oversized = 0
    /// True once the top-level object ended.
    public var finished: Bool { if case .done = place { true } else { false } }

    public init() {}

    /// Feeds `bytes`; `element` receives each complete element of `actions`, as its JSON.
    public mutating func feed(_ bytes: some Sequence<UInt8>, element: ([UInt8]) throws -> Void) rethrows {
        for byte in bytes {
            try step(byte, element: element)
        }
    }

    private mutating func keep(_ byte: UInt8) {
        guard !bufferOverflow else { return }
        if buffer.count >= Self.elementLimit {
            bufferOverflow = true
            buffer = []
        } else {
            buffer.append(byte)
        }
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

    private mutating func step(_ byte: UInt8, element: ([UInt8]) throws -> Void) rethrows {
        switch place {
        case .start:
            if byte == UInt8(ascii: "{") { place = .members }
        case .members:
            if byte == UInt8(ascii: "\"") {
                key = []
                escaped = false
                place = .key
            } else if byte == UInt8(ascii: "}") {
                place = .done
            }
        case .key:
            if escaped {
                escaped = false
                key.append(byte)
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                place = .colon
            } else if key.count < 64 {
                key.append(byte)
            }
        case .colon:
            guard byte != UInt8(ascii: ":"), !Self.isSpace(byte) else { return }
            if key == Array("actions".utf8), byte == UInt8(ascii: "[") {
                place = .array
                return
            }
            // Any other value: skipped, its text kept only for `timestamp`.
            place = .value
            buffer = []
            bufferOverflow = false
            depth = 0
            inString = false
            escaped = false
            try valueByte(byte, element: element)
        case .value:
            try valueByte(byte, element: element)
        case .array:
            if byte == UInt8(ascii: "]") {
                place = .members
            } else if byte != UInt8(ascii: ","), !Self.isSpace(byte) {
                place = .element
                buffer = []
                bufferOverflow = false
                depth = 0
                inString = false
                escaped = false
                try elementByte(byte, element: element)
            }
        case .element:
            try elementByte(byte, element: element)
        case .done:
            break
        }
    }

    /// A byte of a skipped top-level value; at its end, back to the members (and `timestamp` kept).
    private mutating func valueByte(_ byte: UInt8, element: ([UInt8]) throws -> Void) rethrows {
        if track(byte) { return }
        if depth == 0, byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") {
            if key == Array("timestamp".utf8), !bufferOverflow {
                timestampText = String(decoding: buffer, as: UTF8.self).trimmingWhitespace
            }
            buffer = []
            place = byte == UInt8(ascii: "}") ? .done : .members
            return
        }
        if key == Array("timestamp".utf8) { keep(byte) }
        adjustDepth(byte)
    }

    /// A byte of an element of `actions`; at its end, handed over.
    private mutating func elementByte(_ byte: UInt8, element: ([UInt8]) throws -> Void) rethrows {
        if track(byte) {
            keep(byte)
            return
        }
        if depth == 0, byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") {
            try finishElement(element)
            place = byte == UInt8(ascii: "]") ? .members : .array
            return
        }
        // Space after a scalar is not part of it.
        if depth == 0, Self.isSpace(byte) { return }
        keep(byte)
        adjustDepth(byte)
        // An object or array element ends with its closing bracket.
        if depth == 0, byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
            try finishElement(element)
            place = .array
        }
    }

    private mutating func finishElement(_ element: ([UInt8]) throws -> Void) rethrows {
        if bufferOverflow {
            oversized += 1
        } else if !buffer.isEmpty {
            try element(buffer)
        }
        buffer = []
        bufferOverflow = false
    }

    /// Strings: true while `byte` is inside one (or opens or closes it).
    private mutating func track(_ byte: UInt8) -> Bool {
        if inString {
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
            }
            return true
        }
        if byte == UInt8(ascii: "\"") {
            inString = true
            return true
        }
        return false
    }

    private mutating func adjustDepth(_ byte: UInt8) {
        if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
            depth += 1
        } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
            depth -= 1
        }
    }
}
