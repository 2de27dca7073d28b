import FoundationEssentials
import Glibc
import PodqBase

/// Gets a feed file ready for libxml2 as UTF-8. (corelibs' `XMLParser`, used before, crashed on names
/// that were not UTF-8, found by the robustness test with three flipped bytes; libxml2 directly
/// reports them, and a readable feed should not be refused for one bad byte.)
///
/// A feed declared (or defaulting to) UTF-8 is checked, and when it holds invalid bytes a copy is
/// written with each bad sequence replaced by U+FFFD. A feed declared ISO-8859-1 or windows-1252 is
/// transcoded to UTF-8 here (the declaration rewritten), so what reaches the parser is always UTF-8.
enum FeedInput {
    /// The path to parse: `path` itself, or a temporary copy (then `isCopy` is true; delete it).
    /// - Parameter checkUTF8: false to pass a UTF-8 file through unread (libxml2 reports bad bytes;
    ///   the caller then asks again with true).
    static func prepare(_ path: String, checkUTF8: Bool = true) throws(FeedError) -> (path: String, isCopy: Bool) {
        guard let handle = PlainFile(forReadingAtPath: path) else { throw .unreadable(path: path, reason: "cannot open") }
        defer { handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 1024)) ?? Data())
        if head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE]) {
            return (try transcode(path, from: .utf16), true)
        }
        let encoding = declaredEncoding(head)?.lowercased() ?? "utf-8"
        switch encoding {
        case "utf-8", "utf8":
            guard checkUTF8 else { return (path, false) }
            try? handle.seek(toOffset: 0)
            if isValidUTF8(handle) { return (path, false) }
            return (try copy(path, table: nil), true)
        case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "us-ascii", "ascii":
            return (try copy(path, table: latin1), true)
        case "windows-1252", "cp1252", "x-cp1252":
            return (try copy(path, table: cp1252), true)
        default:
            if let other = otherEncodings[encoding] { return (try transcode(path, from: other), true) }
            // An encoding we do not know (or a garbled declaration): read it as UTF-8, repaired.
            return (try copy(path, table: nil), true)
        }
    }

    /// True when the rest of the file is valid UTF-8, read 1 MiB at a time and checked in place
    /// (ASCII eight bytes at a time; no String is built).
    static func isValidUTF8(_ handle: PlainFile) -> Bool {
        var carry = Data()
        while let read = try? handle.read(upToCount: 1 << 20), !read.isEmpty {
            let chunk = carry.isEmpty ? read : carry + read
            // A sequence cut by the chunk's end waits for the next chunk.
            guard let tail = chunk.withUnsafeBytes({ UTF8Check.incompleteTail($0) }) else { return false }
            carry = tail == 0 ? Data() : chunk.suffix(tail)
        }
        return carry.isEmpty
    }

    /// Multi-byte encodings seen in feeds, through Foundation (the file is read whole: rare, and capped).
    static let otherEncodings: [String: String.Encoding] = [
        "utf-16": .utf16, "shift_jis": .shiftJIS, "shift-jis": .shiftJIS, "sjis": .shiftJIS, "euc-jp": .japaneseEUC,
        "iso-2022-jp": .iso2022JP, "windows-1251": .windowsCP1251, "cp1251": .windowsCP1251, "windows-1250": .windowsCP1250,
        "iso-8859-2": .isoLatin2, "windows-1253": .windowsCP1253, "windows-1254": .windowsCP1254,
    ]

    private static func transcode(_ path: String, from encoding: String.Encoding) throws(FeedError) -> String {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: encoding) else {
            throw .malformed(line: 1, column: 1, reason: "the text is not in the encoding the feed declares")
        }
        let output = LexicalPath.join(LexicalPath.temporaryFolder, "podq-feed-\(UUID().uuidString).xml")
        let body = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        guard FileManager.default.createFile(atPath: output, contents: Data(rewriteDeclaration(Array(body.utf8)))) else {
            throw .unreadable(path: output, reason: "cannot write a UTF-8 copy")
        }
        return output
    }

    /// Writes the UTF-8 copy: repaired, or transcoded with `table` (and the declaration rewritten).
    private static func copy(_ path: String, table: [UInt32]?) throws(FeedError) -> String {
        let output = LexicalPath.join(LexicalPath.temporaryFolder, "podq-feed-\(UUID().uuidString).xml")
        guard let input = PlainFile(forReadingAtPath: path), FileManager.default.createFile(atPath: output, contents: nil),
            let out = PlainFile(forWritingAtPath: output)
        else { throw .unreadable(path: path, reason: "cannot write a UTF-8 copy") }
        defer {
            input.close()
            out.close()
        }
        var repair = UTF8Repair()
        var first = true
        while let chunk = try? input.read(upToCount: 1 << 20), !chunk.isEmpty {
            var bytes: [UInt8]
            if let table {
                bytes = []
                bytes.reserveCapacity(chunk.count + chunk.count / 8)
                for b in chunk { appendUTF8(table[Int(b)], to: &bytes) }
                if first { bytes = rewriteDeclaration(bytes) }
            } else {
                bytes = repair.repair(chunk, final: false)
                if first { bytes = rewriteDeclaration(bytes) }
            }
            first = false
            try? out.write(contentsOf: Data(bytes))
        }
        if table == nil { try? out.write(contentsOf: Data(repair.repair(Data(), final: true))) }
        return output
    }

    /// The `encoding` of the XML declaration, if any.
    static func declaredEncoding(_ head: [UInt8]) -> String? {
        let text = String(decoding: head.prefix(300), as: UTF8.self)
        guard text.hasPrefix("<?xml") || text.dropFirst().hasPrefix("<?xml"), let end = text.firstRange(of: "?>"),
            let key = text[..<end.lowerBound].firstRange(of: "encoding")
        else { return nil }
        let rest = text[key.upperBound..<end.lowerBound].drop { $0 == " " || $0 == "=" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        return String(rest.dropFirst().prefix { $0 != quote })
    }

    /// The declaration with `encoding="UTF-8"`.
    static func rewriteDeclaration(_ bytes: [UInt8]) -> [UInt8] {
        guard let end = bytes.prefix(300).firstIndex(of: UInt8(ascii: ">")) else { return bytes }
        let declaration = String(decoding: bytes[...end], as: UTF8.self)
        guard declaration.hasPrefix("<?xml"), let match = declaration.firstMatch(of: #/encoding\s*=\s*["'][^"']*["']/#) else { return bytes }
        var rewritten = declaration
        rewritten.replaceSubrange(match.range, with: "encoding=\"UTF-8\"")
        return Array(rewritten.utf8) + bytes[(end + 1)...]
    }

    static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case 0..<0x80: out.append(UInt8(scalar))
        case 0x80..<0x800: out += [UInt8(0xC0 | (scalar >> 6)), UInt8(0x80 | (scalar & 0x3F))]
        default: out += [UInt8(0xE0 | (scalar >> 12)), UInt8(0x80 | ((scalar >> 6) & 0x3F)), UInt8(0x80 | (scalar & 0x3F))]
        }
    }

    static let latin1: [UInt32] = (0..<256).map { UInt32($0) }
    static let cp1252: [UInt32] = {
        var t = latin1
        let high: [UInt32] = [
            0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152,
            0xFFFD, 0x017D, 0xFFFD, 0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122,
            0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178,
        ]
        for (i, v) in high.enumerated() { t[0x80 + i] = v }
        return t
    }()
}

/// A streaming UTF-8 checker and repairer (bad sequences become U+FFFD).
struct UTF8Repair {
    /// Bytes of a sequence cut at the end of the last chunk.
    private var carry: [UInt8] = []
    private(set) var clean = true
    /// How many bad sequences were replaced so far.
    private(set) var invalidCount = 0

    /// The chunk with invalid sequences replaced; `final` flushes a cut sequence as invalid.
    mutating func repair(_ chunk: Data, final: Bool) -> [UInt8] {
        let bytes = carry + [UInt8](chunk)
        carry = []
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            let need: Int
            switch b {
            case 0x00...0x7F: need = 0
            case 0xC2...0xDF: need = 1
            case 0xE0...0xEF: need = 2
            case 0xF0...0xF4: need = 3
            default: need = -1
            }
            if need < 0 {
                bad(&out)
                i += 1
                continue
            }
            if i + need >= bytes.count && need > 0 && !final {
                carry = Array(bytes[i...])
                break
            }
            var ok = i + need < bytes.count
            if ok {
                for k in 1...max(1, need) where need > 0 {
                    let c = bytes[i + k]
                    if c & 0xC0 != 0x80 { ok = false }
                }
                // Overlong forms, surrogates and values past U+10FFFF.
                if need == 2, (b == 0xE0 && bytes[i + 1] < 0xA0) || (b == 0xED && bytes[i + 1] > 0x9F) { ok = false }
                if need == 3, (b == 0xF0 && bytes[i + 1] < 0x90) || (b == 0xF4 && bytes[i + 1] > 0x8F) { ok = false }
            }
            if ok {
                out.append(contentsOf: bytes[i...(i + need)])
                i += need + 1
            } else {
                bad(&out)
                i += 1
            }
        }
        return out
    }

    private mutating func bad(_ out: inout [UInt8]) {
        clean = false
        invalidCount += 1
        out += [0xEF, 0xBF, 0xBD]
    }
}
