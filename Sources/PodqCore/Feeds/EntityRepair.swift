import Foundation

/// Makes a sloppy feed parseable: HTML entities that XML does not declare (`&nbsp;`, `&eacute;`…)
/// become numeric references, and a stray `&` becomes `&amp;`. Streams a copy; the original is kept.
enum EntityRepair {
    /// Writes a repaired copy of `path` in the temporary folder and returns its path; nil (and no
    /// copy) when there was nothing to repair.
    static func repair(file path: String) throws(FeedError) -> String? {
        guard let input = FileHandle(forReadingAtPath: path) else { throw .unreadable(path: path, reason: "cannot open") }
        defer { try? input.close() }
        let output = (NSTemporaryDirectory() as NSString).appendingPathComponent("podq-feed-\(UUID().uuidString).xml")
        guard FileManager.default.createFile(atPath: output, contents: nil), let out = FileHandle(forWritingAtPath: output) else {
            throw .unreadable(path: output, reason: "cannot write a repaired copy")
        }
        defer { try? out.close() }
        var carry: [UInt8] = []
        var changed = false
        while true {
            let chunk = (try? input.read(upToCount: 1 << 20)) ?? nil
            let atEnd = chunk == nil || chunk!.isEmpty
            var bytes = carry + (chunk.map { [UInt8]($0) } ?? [])
            carry = []
            // Keep a possibly cut `&name;` for the next chunk.
            if !atEnd, let amp = bytes.lastIndex(of: UInt8(ascii: "&")), bytes.count - amp < 40, !bytes[amp...].contains(UInt8(ascii: ";")) {
                carry = Array(bytes[amp...])
                bytes.removeSubrange(amp...)
            }
            let fixed = fix(bytes)
            if fixed != bytes { changed = true }
            try? out.write(contentsOf: Data(fixed))
            if atEnd { break }
        }
        if !changed {
            unlink(output)
            return nil
        }
        return output
    }

    /// The bytes with every `&` that does not start a known reference fixed.
    static func fix(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 64)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            guard b == UInt8(ascii: "&") else {
                out.append(b)
                i += 1
                continue
            }
            var j = i + 1
            while j < bytes.count, j - i < 40, isNameByte(bytes[j]) { j += 1 }
            let name = String(decoding: bytes[(i + 1)..<j], as: UTF8.self)
            if j < bytes.count, bytes[j] == UInt8(ascii: ";"), !name.isEmpty {
                if xmlEntities.contains(name) || name.hasPrefix("#") {
                    out.append(contentsOf: bytes[i...j])
                } else if let scalar = htmlEntities[name] {
                    out.append(contentsOf: Array("&#\(scalar);".utf8))
                } else {
                    out.append(contentsOf: Array("&amp;".utf8))
                    out.append(contentsOf: bytes[(i + 1)...j])
                }
                i = j + 1
            } else {
                out.append(contentsOf: Array("&amp;".utf8))
                i += 1
            }
        }
        return out
    }

    private static func isNameByte(_ b: UInt8) -> Bool {
        (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == UInt8(ascii: "#")
            || b == UInt8(ascii: "x")
    }

    private static let xmlEntities: Set<String> = ["amp", "lt", "gt", "quot", "apos"]

    /// The HTML entities seen in real feeds, as Unicode scalar values.
    static let htmlEntities: [String: Int] = [
        "nbsp": 160, "iexcl": 161, "cent": 162, "pound": 163, "curren": 164, "yen": 165, "brvbar": 166, "sect": 167,
        "uml": 168, "copy": 169, "ordf": 170, "laquo": 171, "not": 172, "shy": 173, "reg": 174, "macr": 175, "deg": 176,
        "plusmn": 177, "sup2": 178, "sup3": 179, "acute": 180, "micro": 181, "para": 182, "middot": 183, "cedil": 184,
        "sup1": 185, "ordm": 186, "raquo": 187, "frac14": 188, "frac12": 189, "frac34": 190, "iquest": 191,
        "Agrave": 192, "Aacute": 193, "Acirc": 194, "Atilde": 195, "Auml": 196, "Aring": 197, "AElig": 198, "Ccedil": 199,
        "Egrave": 200, "Eacute": 201, "Ecirc": 202, "Euml": 203, "Igrave": 204, "Iacute": 205, "Icirc": 206, "Iuml": 207,
        "ETH": 208, "Ntilde": 209, "Ograve": 210, "Oacute": 211, "Ocirc": 212, "Otilde": 213, "Ouml": 214, "times": 215,
        "Oslash": 216, "Ugrave": 217, "Uacute": 218, "Ucirc": 219, "Uuml": 220, "Yacute": 221, "THORN": 222, "szlig": 223,
        "agrave": 224, "aacute": 225, "acirc": 226, "atilde": 227, "auml": 228, "aring": 229, "aelig": 230, "ccedil": 231,
        "egrave": 232, "eacute": 233, "ecirc": 234, "euml": 235, "igrave": 236, "iacute": 237, "icirc": 238, "iuml": 239,
        "eth": 240, "ntilde": 241, "ograve": 242, "oacute": 243, "ocirc": 244, "otilde": 245, "ouml": 246, "divide": 247,
        "oslash": 248, "ugrave": 249, "uacute": 250, "ucirc": 251, "uuml": 252, "yacute": 253, "thorn": 254, "yuml": 255,
        "ndash": 8211, "mdash": 8212, "lsquo": 8216, "rsquo": 8217, "sbquo": 8218, "ldquo": 8220, "rdquo": 8221,
        "bdquo": 8222, "dagger": 8224, "Dagger": 8225, "bull": 8226, "hellip": 8230, "permil": 8240, "prime": 8242,
        "lsaquo": 8249, "rsaquo": 8250, "euro": 8364, "trade": 8482, "larr": 8592, "rarr": 8594, "hearts": 9829,
        "ensp": 8194, "emsp": 8195, "thinsp": 8201, "zwnj": 8204, "zwj": 8205, "lrm": 8206, "rlm": 8207,
    ]
}
