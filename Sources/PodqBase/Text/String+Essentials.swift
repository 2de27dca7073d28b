/// What podq used from Foundation's NSString bridge, on Swift's own strings: FoundationEssentials has
/// none of it, and the rest of Foundation brings ICU's 34 MB (docs/DECISIONS.md, "FoundationEssentials
/// only"). Each matches the Foundation call it replaced, byte for byte (StringEssentialsTests).
extension StringProtocol {
    /// `trimmingCharacters(in: .whitespaces)`: without leading and trailing spaces (Unicode's Zs, and
    /// the zero-width space, which Foundation counts as one) and tabs.
    public var trimmingSpaces: String { trimming(Self.isSpace) }

    /// `trimmingCharacters(in: .whitespacesAndNewlines)`: without leading and trailing spaces (Unicode's
    /// Z categories and the zero-width space), tabs and line ends (U+000A to U+000D, U+0085).
    public var trimmingWhitespace: String { trimming(Self.isWhitespaceOrNewline) }

    /// Without the leading and trailing scalars that `drop` picks.
    public func trimming(_ drop: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !drop($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !drop($0) })!
        return String(String.UnicodeScalarView(scalars[first...last]))
    }

    /// `replacingOccurrences(of:with:)`: every occurrence of `target`, left to right and not
    /// overlapping, replaced. Compared byte for byte in UTF-8, so "\n" is found inside "\r\n" (one
    /// Character to Swift's own `replacing(_:with:)`, which would not find it).
    public func replacingEvery(_ target: String, with replacement: String) -> String {
        let needle = Array(target.utf8)
        guard !needle.isEmpty else { return String(self) }
        let bytes = Array(utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        var changed = false
        while i < bytes.count {
            if bytes[i] == needle[0], i + needle.count <= bytes.count, bytes[i..<(i + needle.count)].elementsEqual(needle) {
                out.append(contentsOf: replacement.utf8)
                i += needle.count
                changed = true
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return changed ? String(decoding: out, as: UTF8.self) : String(self)
    }

    /// `padding(toLength:withPad: " ", startingAt: 0)`: cut or filled with spaces to `length` characters.
    public func padded(to length: Int) -> String {
        count >= length ? String(prefix(length)) : String(self) + String(repeating: " ", count: length - count)
    }

    static func isSpace(_ s: Unicode.Scalar) -> Bool {
        s == "\t" || s == "\u{200B}" || s.properties.generalCategory == .spaceSeparator
    }

    static func isWhitespaceOrNewline(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x09...0x0D, 0x85, 0x200B: return true
        default:
            switch s.properties.generalCategory {
            case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
            default: return false
            }
        }
    }
}
