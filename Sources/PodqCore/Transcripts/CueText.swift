import FoundationEssentials
import PodqBase

/// The text of transcripts: their bytes read as text, and a cue's payload made plain.
enum CueText {
    /// `bytes` as text: UTF-8 (a byte-order mark dropped), UTF-16 with its mark, else Latin-1 (old
    /// SRT files are Windows-1252 more often than not), with a note saying so.
    static func decode(_ bytes: [UInt8]) -> (text: String, note: String?) {
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            let little = bytes[0] == 0xFF
            var units: [UInt16] = []
            units.reserveCapacity(bytes.count / 2)
            var i = 2
            while i + 1 < bytes.count {
                units.append(little ? UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8 : UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]))
                i += 2
            }
            return (String(decoding: units, as: UTF16.self), nil)
        }
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes[3...] : bytes[...]
        if let text = String(validating: body, as: UTF8.self) { return (text, nil) }
        var scalars = String.UnicodeScalarView()
        scalars.reserveCapacity(body.count)
        for byte in body { scalars.append(Unicode.Scalar(byte)) }
        return (String(scalars), "it is not UTF-8: read as Latin-1")
    }

    /// A cue's payload as plain text: tags go (VTT's `<v Speaker>` gives the speaker), SRT's
    /// `{\an8}` styling goes, entities are read, white space runs become one space, the result is
    /// cleaned (``SafeText``) and cut at `limit` UTF-8 bytes at a word (`cut` says it was).
    /// - Parameter markup: false for text that is already plain (HTML read by ``ShowNotes``): a `<` or
    ///   `&` in it is what was said.
    static func plain(_ payload: String, limit: Int, markup: Bool = true) -> (speaker: String?, text: String, cut: Bool) {
        var speaker: String?
        var out = ""
        out.reserveCapacity(min(payload.utf8.count, limit + 16))
        var scalars = payload.unicodeScalars[...]
        var pendingSpace = false
        var cut = false
        func emit(_ scalar: Unicode.Scalar) {
            if scalar.properties.isWhitespace {
                pendingSpace = !out.isEmpty
                return
            }
            if pendingSpace {
                out.unicodeScalars.append(" ")
                pendingSpace = false
            }
            out.unicodeScalars.append(scalar)
        }
        while let scalar = scalars.first {
            if out.utf8.count > limit {
                cut = true
                break
            }
            scalars = scalars.dropFirst()
            guard markup else {
                emit(scalar)
                continue
            }
            switch scalar {
            case "<":
                // A tag, to its `>` (none: the `<` is text).
                guard let close = scalars.prefix(512).firstIndex(of: ">") else {
                    emit(scalar)
                    continue
                }
                let tag = String(String.UnicodeScalarView(scalars[..<close]))
                scalars = scalars[scalars.index(after: close)...]
                if tag.hasPrefix("v ") || tag.hasPrefix("v.") || tag.hasPrefix("V ") {
                    let name = tag.drop { $0 != " " }.trimmingWhitespace
                    if !name.isEmpty && speaker == nil { speaker = SafeText.clean(name) }
                }
                if tag.hasPrefix("br") { emit(" ") }
            case "{" where scalars.first == "\\":
                guard let close = scalars.prefix(256).firstIndex(of: "}") else {
                    emit(scalar)
                    continue
                }
                scalars = scalars[scalars.index(after: close)...]
            case "&":
                guard let semicolon = scalars.prefix(12).firstIndex(of: ";"),
                    let value = entity(String(String.UnicodeScalarView(scalars[..<semicolon])))
                else {
                    emit(scalar)
                    continue
                }
                scalars = scalars[scalars.index(after: semicolon)...]
                if value.value != 0x200E && value.value != 0x200F { emit(value) }
            default:
                emit(scalar)
            }
        }
        var text = SafeText.clean(out)
        if cut || text.utf8.count > limit {
            cut = true
            text = cutAtWord(text, limit: limit)
        }
        return (speaker, text, cut)
    }

    /// `text` cut to at most `limit` UTF-8 bytes, at the last space before the limit when there is one.
    static func cutAtWord(_ text: String, limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var end = text.startIndex
        var lastSpace: String.Index?
        var bytes = 0
        for index in text.indices {
            let size = text[index].utf8.count
            if bytes + size > limit { break }
            bytes += size
            if text[index] == " " { lastSpace = index }
            end = text.index(after: index)
        }
        return String(text[..<(lastSpace ?? end)]) + "…"
    }

    /// The character an entity's name (`amp`, `#39`, `#x2019`) stands for.
    static func entity(_ name: String) -> Unicode.Scalar? {
        if name.hasPrefix("#x") || name.hasPrefix("#X") {
            return UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).flatMap(valid)
        }
        if name.hasPrefix("#") { return UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).flatMap(valid) }
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default: return HTMLEntities.scalars[name].flatMap { Unicode.Scalar(UInt32($0)) }
        }
    }

    private static func valid(_ scalar: Unicode.Scalar) -> Unicode.Scalar? { scalar.value == 0 ? nil : scalar }
}
