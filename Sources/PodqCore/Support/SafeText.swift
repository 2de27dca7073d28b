/// Text from the network, made safe for a terminal, a log line or a file name.
///
/// Feeds and servers are not trusted: a title may carry ANSI escape sequences that would move the
/// cursor or retitle the window. ``clean(_:)`` removes every C0 and C1 control character (and the
/// escape sequences they introduce) and folds runs of whitespace into one space.
public enum SafeText {
    /// `text` without control characters or escape sequences, with whitespace runs folded and trimmed.
    public static func clean(_ text: String) -> String {
        if isAlreadyClean(text) { return text }
        return slowClean(text)
    }

    /// True when `clean` would return `text` unchanged: no control byte, no C1 or bidi control, no
    /// no-break space, no whitespace run, nothing to trim. One pass over the UTF-8 bytes.
    static func isAlreadyClean(_ text: String) -> Bool {
        var previousSpace = true  // a leading space is not clean
        var iterator = text.utf8.makeIterator()
        var last: UInt8 = 0
        var beforeLast: UInt8 = 0
        while let b = iterator.next() {
            if b < 0x20 || b == 0x7F { return false }
            if b == 0x20 {
                if previousSpace { return false }
                previousSpace = true
            } else {
                previousSpace = false
            }
            // C1 controls and U+00A0 (C2 80–C2 A0); line separators and bidi controls (E2 80 A8–AE, E2 81 A6–A9).
            if beforeLast == 0xE2, (last == 0x80 && (0xA8...0xAE).contains(b)) || (last == 0x81 && (0xA6...0xA9).contains(b)) { return false }
            if last == 0xC2, (0x80...0xA0).contains(b) { return false }
            beforeLast = last
            last = b
        }
        return !previousSpace || text.isEmpty
    }

    static func slowClean(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        var pendingSpace = false
        while let scalar = scalars.next() {
            switch scalar.value {
            case 0x1B:  // ESC: drop the whole sequence it introduces.
                skipEscapeSequence(&scalars)
            case 0x9B:  // C1 CSI: parameters then a final byte.
                skipUntilFinal(&scalars)
            case 0x90, 0x9D, 0x9E, 0x9F:  // C1 DCS, OSC, PM, APC: string until ST or BEL.
                skipString(&scalars)
            case 0x09, 0x0A, 0x0D, 0x20, 0xA0:
                pendingSpace = !out.isEmpty
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
                continue  // other controls, line separators and bidi overrides
            default:
                if pendingSpace {
                    out.append(" ")
                    pendingSpace = false
                }
                out.append(scalar)
            }
        }
        return String(out)
    }

    private static func skipEscapeSequence(_ it: inout String.UnicodeScalarView.Iterator) {
        guard let next = it.next() else { return }
        switch next {
        case "[": skipUntilFinal(&it)
        case "]", "P", "^", "_", "X": skipString(&it)
        default: return  // a two-character sequence such as ESC c
        }
    }

    /// CSI: parameter and intermediate bytes (0x20–0x3F) up to a final byte (0x40–0x7E).
    private static func skipUntilFinal(_ it: inout String.UnicodeScalarView.Iterator) {
        while let s = it.next() {
            if (0x40...0x7E).contains(s.value) || !(0x20...0x3F).contains(s.value) { return }
        }
    }

    /// OSC, DCS and friends: up to BEL, ST (ESC \) or C1 ST.
    private static func skipString(_ it: inout String.UnicodeScalarView.Iterator) {
        while let s = it.next() {
            if s.value == 0x07 || s.value == 0x9C { return }
            if s.value == 0x1B {
                _ = it.next()
                return
            }
        }
    }
}
