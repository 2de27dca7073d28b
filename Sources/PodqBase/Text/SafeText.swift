/// Text from the network or a file, made safe for a terminal, a log line, JSON or a file name: the
/// one cleaner every such string goes through before any output.
///
/// Feeds, OPML files and servers are not trusted: a title may carry ANSI escape sequences that would
/// move the cursor or retitle the window, or a bidi override (U+202E) that makes `evil.exe` read as
/// `exe.live`. What counts as unsafe is defined once (``isUnsafe(_:)``): C0 and C1 controls, DEL,
/// line and paragraph separators, bidi embeddings, overrides, isolates and marks, and invisible
/// format characters. ``clean(_:)`` removes them (and the escape sequences they introduce) and folds
/// whitespace, for one-line fields; ``terminal(_:)`` keeps line breaks, for whole messages;
/// ``redactingCredentials(_:)`` hides the `user:password@` of URLs.
public enum SafeText {
    /// `text` without control characters or escape sequences, with whitespace runs folded and trimmed.
    @_optimize(speed)
    public static func clean(_ text: String) -> String {
        if isAlreadyClean(text) { return text }
        return slowClean(text, keepLines: false)
    }

    /// `text` for a terminal: every unsafe character and escape sequence removed, line breaks and
    /// tabs kept, and credentials in URLs redacted.
    @_optimize(speed)
    public static func terminal(_ text: String) -> String {
        // One pass over the bytes finds what the common case lacks: an `@` (a URL's login), a
        // control character, a byte of a multi-byte character (which may be unsafe).
        var scan = text
        let (at, control, multiByte) = scan.withUTF8 { bytes -> (Bool, Bool, Bool) in
            var at = false
            var control = false
            var multiByte = false
            for b in bytes {
                if b < 0x20 {
                    if b != 0x0A && b != 0x09 { control = true }
                } else if b >= 0x7F {
                    if b == 0x7F { control = true } else if b >= 0xC2 { multiByte = true }
                } else if b == UInt8(ascii: "@") {
                    at = true
                }
            }
            return (at, control, multiByte)
        }
        let redacted = at ? redactingCredentials(text) : text
        let needsWork = control || (multiByte && redacted.unicodeScalars.contains { $0.value > 0x7F && isUnsafe($0) })
        return needsWork ? slowClean(redacted, keepLines: true) : redacted
    }

    /// True for a character no output of podq may carry as it is.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true  // C0, DEL, C1
        case 0x2028, 0x2029: true  // line and paragraph separators
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // bidi marks, embeddings, overrides, isolates
        case 0x200B, 0x206A...0x206F, 0xFEFF, 0xFFF9...0xFFFB: true  // invisible format characters
        default: false
        }
    }

    /// True when `clean` would return `text` unchanged: no unsafe character, no no-break space, no
    /// whitespace run, nothing to trim. One pass over the UTF-8 bytes.
    @_optimize(speed)
    static func isAlreadyClean(_ text: String) -> Bool {
        var previousSpace = true  // a leading space is not clean
        for b in text.utf8 {
            if b < 0x20 || b == 0x7F { return false }
            if b >= 0xC2 { return isAlreadyCleanScalars(text) }
            if b == 0x20 {
                if previousSpace { return false }
                previousSpace = true
            } else {
                previousSpace = false
            }
        }
        return !previousSpace || text.isEmpty
    }

    @_optimize(speed)
    private static func isAlreadyCleanScalars(_ text: String) -> Bool {
        var previousSpace = true
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) || scalar.value == 0xA0 { return false }
            if scalar == " " {
                if previousSpace { return false }
                previousSpace = true
            } else {
                previousSpace = false
            }
        }
        return !previousSpace || text.isEmpty
    }

    static func slowClean(_ text: String, keepLines: Bool) -> String {
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
            case 0x0A where keepLines, 0x09 where keepLines:
                out.append(scalar)
            case 0x09, 0x0A, 0x0D, 0x20, 0xA0:
                if keepLines {
                    if scalar.value != 0x0D { out.append(scalar) }
                } else {
                    pendingSpace = !out.isEmpty
                }
            case _ where isUnsafe(scalar):
                continue
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

    /// `text` with the user information of every URL in it (`https://user:secret@host`) replaced by
    /// `***`, so no credential reaches a terminal, a log or JSON.
    public static func redactingCredentials(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "@")), text.contains("://") else { return text }
        var result = ""
        var rest = Substring(text)
        while let scheme = rest.firstRange(of: "://") {
            result += rest[..<scheme.upperBound]
            rest = rest[scheme.upperBound...]
            let authorityEnd = rest.firstIndex { "/?#\"' <>\n\t".contains($0) } ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@") {
                result += "***"
                rest = rest[at...]
            }
        }
        return result + rest
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
