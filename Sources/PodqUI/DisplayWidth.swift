/// How many terminal cells text takes: 2 for East Asian wide characters and most emoji, 0 for
/// combining marks and joiners, 1 otherwise. Layout uses it so CJK and emoji titles stay aligned.
public enum DisplayWidth {
    /// The cells `character` takes.
    public static func of(_ character: Character) -> Int {
        if let ascii = character.asciiValue { return ascii >= 0x20 && ascii != 0x7F ? 1 : 0 }
        let scalars = character.unicodeScalars
        // One scalar (most characters: a bar's blocks, accented letters, CJK): no walk over them.
        if let first = scalars.first, scalars.index(after: scalars.startIndex) == scalars.endIndex {
            return first.value == 0xFE0F ? 2 : of(first)
        }
        var width = 0
        for scalar in character.unicodeScalars {
            width = max(width, of(scalar))
        }
        // An emoji presentation selector makes the preceding symbol wide in most terminals.
        if character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { width = max(width, 2) }
        // A flag (two regional indicators) is one wide picture.
        if character.unicodeScalars.count == 2, character.unicodeScalars.allSatisfy({ (0x1F1E6...0x1F1FF).contains($0.value) }) {
            width = 2
        }
        return width
    }

    /// The cells a single scalar takes.
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x7F { return v >= 0x20 ? 1 : 0 }
        if v < 0xA0 { return 0 }
        // Fast paths (a frame measures thousands of cells; the Unicode property lookup is the cost):
        // Latin-1 and Latin Extended have no marks below U+0300 but the soft hyphen; dashes, quotes,
        // the ellipsis, box drawing and block elements are one cell.
        if v < 0x300 { return v == 0xAD ? 0 : 1 }
        if (0x2010...0x2027).contains(v) || (0x2500...0x25FF).contains(v) { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if v == 0x200D || (0xFE00...0xFE0F).contains(v) { return 0 }
        if isWide(v) { return 2 }
        return 1
    }

    /// True for a scalar that takes one cell and is a character on its own, whatever is next to it:
    /// printable ASCII, Latin-1 and Latin Extended (not the soft hyphen), dashes, quotes and the
    /// ellipsis, box drawing, block elements and geometric shapes (a progress bar). Text made only of
    /// them is laid out a scalar a cell, without breaking it into characters.
    @inline(__always)
    public static func isSimple(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 0x7F { return v >= 0x20 }
        return (0xA0..<0x300).contains(v) && v != 0xAD || (0x2010...0x2027).contains(v) || (0x2500...0x25FF).contains(v)
    }

    /// The cells `text` takes.
    public static func of(_ text: String) -> Int {
        var printableASCII = true
        for byte in text.utf8 where byte < 0x20 || byte >= 0x7F {
            printableASCII = false
            break
        }
        if printableASCII { return text.utf8.count }
        var simple = 0
        for scalar in text.unicodeScalars {
            guard isSimple(scalar) else { return text.reduce(0) { $0 + of($1) } }
            simple += 1
        }
        return simple
    }

    /// `text` cut to at most `cells` cells, with `…` when something was cut.
    public static func truncate(_ text: String, to cells: Int) -> String {
        guard cells > 0 else { return "" }
        if of(text) <= cells { return text }
        var out = ""
        var used = 0
        for ch in text {
            let w = of(ch)
            if used + w > cells - 1 { break }
            out.append(ch)
            used += w
        }
        return out + "…"
    }

    /// `text` padded with spaces (or cut) to exactly `cells` cells.
    public static func pad(_ text: String, to cells: Int) -> String {
        pad(text, width: of(text), to: cells)
    }

    /// ``pad(_:to:)`` for `text` whose width is known (`width`): measured once a frame, not three times.
    public static func pad(_ text: String, width: Int, to cells: Int) -> String {
        if width <= cells { return width == cells ? text : text + String(repeating: " ", count: cells - width) }
        let cut = truncate(text, to: cells)
        return cut + String(repeating: " ", count: max(0, cells - of(cut)))
    }

    private static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x1F680...0x1F6FF, 0x1FA70...0x1FAFF,
            0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        case 0x2600...0x27BF, 0x2B00...0x2BFF:
            return isEmojiPresentation(v)
        default:
            return false
        }
    }

    private static func isEmojiPresentation(_ v: UInt32) -> Bool {
        Unicode.Scalar(v)?.properties.isEmojiPresentation ?? false
    }
}

extension DisplayWidth {
    /// `text` broken into lines of at most `cells` cells: at spaces where it can, inside a word longer
    /// than a line where it must; wide characters and clusters are never split.
    public static func wrap(_ text: String, to cells: Int) -> [String] {
        guard cells > 0 else { return [] }
        var lines: [String] = []
        var line = ""
        var used = 0
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            let width = of(String(word))
            if used > 0 && used + 1 + width <= cells {
                line += " " + word
                used += 1 + width
                continue
            }
            if used > 0 {
                lines.append(line)
                line = ""
                used = 0
            }
            if width <= cells {
                line = String(word)
                used = width
                continue
            }
            for ch in word {
                let w = of(ch)
                if used + w > cells {
                    lines.append(line)
                    line = ""
                    used = 0
                }
                line.append(ch)
                used += w
            }
        }
        if used > 0 || lines.isEmpty { lines.append(line) }
        return lines
    }
}
