import FoundationEssentials
import Glibc
import PodqBase

/// Mends a feed that libxml2 refused for a sloppy character, so that one bad byte does not lose every
/// episode (newsboat and feedparser keep them too). Streams a copy; the original is kept.
///
/// In one pass over the bytes it:
/// - reads byte sequences that are not UTF-8 as U+FFFD;
/// - drops control characters XML forbids, raw or as references (`&#x7;`, `&#0;`, `&#xD800;`), and
///   U+FFFE/U+FFFF;
/// - turns HTML entities XML does not define (`&eacute;`, `&nbsp;`) into numeric references;
/// - escapes a `&` that starts no reference (`Tom & Jerry`, `&unknown;`) as `&amp;`;
/// - closes HTML void elements left open (`<br>` → `<br/>`, `<img src=…>`), which would otherwise
///   swallow the rest of the item.
/// Entities the document declares (`<!ENTITY name …>`) are kept, and CDATA sections and comments are
/// left as they are (an `&` there is text already). What it changed is counted in ``repairs``.
struct FeedRepair {
    private(set) var repairs = FeedRepairs()
    private var utf8 = UTF8Repair()
    private var section = Section.markup
    private var declared: Set<String> = []
    /// Bytes from the end of the last chunk that need more input to be decided.
    private var pending: [UInt8] = []
    /// The `>` of a void element left open, by its index in the bytes being read: written as `/>`.
    private var rewrite: (at: Int, bytes: [UInt8])?

    private enum Section { case markup, cdata, comment }

    /// Writes a repaired copy of `path` in the temporary folder. Returns nil (and no copy) when
    /// nothing needed repair.
    static func repair(file path: String) throws(FeedError) -> (path: String, repairs: FeedRepairs)? {
        guard let input = PlainFile(forReadingAtPath: path) else { throw .unreadable(path: path, reason: "cannot open") }
        defer { input.close() }
        let output = LexicalPath.join(LexicalPath.temporaryFolder, "podq-feed-\(UUID().uuidString).xml")
        guard FileManager.default.createFile(atPath: output, contents: nil), let out = PlainFile(forWritingAtPath: output) else {
            throw .unreadable(path: output, reason: "cannot write a repaired copy")
        }
        defer { out.close() }
        var repair = FeedRepair()
        while true {
            let chunk = (try? input.read(upToCount: 1 << 20)) ?? nil
            let final = chunk?.isEmpty ?? true
            try? out.write(contentsOf: Data(repair.feed([UInt8](chunk ?? Data()), final: final)))
            if final { break }
        }
        guard !repair.repairs.isEmpty else {
            unlink(output)
            return nil
        }
        return (output, repair.repairs)
    }

    /// The repaired bytes of `chunk`; `final` flushes what was held back.
    mutating func feed(_ chunk: [UInt8], final: Bool) -> [UInt8] {
        let before = utf8.invalidCount
        let bytes = pending + utf8.repair(Data(chunk), final: final)
        repairs.invalidBytes += utf8.invalidCount - before
        pending = []
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 64)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b < 0x20 && b != 0x09 && b != 0x0A && b != 0x0D {
                repairs.controlCharacters += 1
                i += 1
                continue
            }
            if b == 0xEF, i + 2 < bytes.count, bytes[i + 1] == 0xBF, bytes[i + 2] >= 0xBE {  // U+FFFE, U+FFFF
                repairs.controlCharacters += 1
                i += 3
                continue
            }
            switch section {
            case .cdata, .comment:
                let end: [UInt8] = section == .cdata ? Array("]]>".utf8) : Array("-->".utf8)
                if b == end[0] {
                    guard let matched = Self.match(end, in: bytes, at: i, final: final) else { return hold(bytes, from: i, out) }
                    if matched { section = .markup }
                }
                out.append(b)
                i += 1
            case .markup:
                if let pendingRewrite = rewrite, pendingRewrite.at == i {
                    out.append(contentsOf: pendingRewrite.bytes)
                    rewrite = nil
                    i += 1
                } else if b == UInt8(ascii: "<") {
                    guard let step = markupStart(bytes, at: i, final: final) else { return hold(bytes, from: i, out) }
                    out.append(contentsOf: bytes[i..<(i + step)])
                    i += step
                } else if b == UInt8(ascii: "&") {
                    guard let (replacement, length) = reference(bytes, at: i, final: final) else { return hold(bytes, from: i, out) }
                    out.append(contentsOf: replacement)
                    i += length
                } else {
                    out.append(b)
                    i += 1
                }
            }
        }
        return out
    }

    private mutating func hold(_ bytes: [UInt8], from index: Int, _ out: [UInt8]) -> [UInt8] {
        pending = Array(bytes[index...])
        if let pendingRewrite = rewrite { rewrite = (pendingRewrite.at - index, pendingRewrite.bytes) }
        return out
    }

    /// True when `word` is at `index`, false when not, nil when the bytes end too soon to tell.
    private static func match(_ word: [UInt8], in bytes: [UInt8], at index: Int, final: Bool) -> Bool? {
        for k in 0..<word.count {
            guard index + k < bytes.count else { return final ? false : nil }
            if bytes[index + k] != word[k] { return false }
        }
        return true
    }

    /// At a `<` in markup: how many bytes to copy as they are (entering a CDATA section or comment,
    /// or noting an entity declaration's name); nil when more input is needed.
    private mutating func markupStart(_ bytes: [UInt8], at i: Int, final: Bool) -> Int? {
        guard let cdata = Self.match(Array("<![CDATA[".utf8), in: bytes, at: i, final: final) else { return nil }
        if cdata {
            section = .cdata
            return 9
        }
        guard let comment = Self.match(Array("<!--".utf8), in: bytes, at: i, final: final) else { return nil }
        if comment {
            section = .comment
            return 4
        }
        guard let entity = Self.match(Array("<!ENTITY".utf8), in: bytes, at: i, final: final) else { return nil }
        guard entity else { return voidElement(bytes, at: i, final: final) }
        var j = i + 8
        while j < bytes.count, bytes[j] == 0x20 || bytes[j] == 0x09 || bytes[j] == 0x0A || bytes[j] == 0x0D || bytes[j] == UInt8(ascii: "%") { j += 1 }
        let nameStart = j
        while j < bytes.count, j - nameStart < 64, Self.isNameByte(bytes[j]) { j += 1 }
        if j == bytes.count && !final { return nil }
        declared.insert(String(decoding: bytes[nameStart..<j], as: UTF8.self))
        return j - i
    }

    /// At a `<` that may open an HTML void element: 1 (copy the `<`), or nil for more input. A void
    /// element left open is rewritten in place as self-closing.
    private mutating func voidElement(_ bytes: [UInt8], at i: Int, final: Bool) -> Int? {
        var j = i + 1
        while j < bytes.count, j - i <= 8, Self.isNameByte(bytes[j]) { j += 1 }
        if j == bytes.count && !final { return nil }
        let name = String(decoding: bytes[(i + 1)..<j], as: UTF8.self).lowercased()
        guard Self.voidElements.contains(name), j < bytes.count, bytes[j] == UInt8(ascii: ">") || bytes[j] == 0x20 || bytes[j] == 0x09 || bytes[j] == 0x0A
        else {
            return 1
        }
        // Find the tag's end, outside quoted attribute values.
        var quote: UInt8 = 0
        var k = j
        while k < bytes.count, k - i < 4096 {
            let c = bytes[k]
            if quote != 0 {
                if c == quote { quote = 0 }
            } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                quote = c
            } else if c == UInt8(ascii: ">") {
                break
            }
            k += 1
        }
        if k == bytes.count && !final { return nil }
        guard k < bytes.count, bytes[k] == UInt8(ascii: ">"), bytes[k - 1] != UInt8(ascii: "/") else { return 1 }
        rewrite = (at: k, bytes: Array("/>".utf8))
        repairs.openTags += 1
        return 1
    }

    /// HTML's void elements, less those RSS uses with content (`link`, `source`).
    private static let voidElements: Set<String> = ["br", "hr", "img", "wbr", "area", "col", "embed", "input", "param", "track"]

    /// At an `&`: what to write and how many bytes it replaces; nil when more input is needed.
    private mutating func reference(_ bytes: [UInt8], at i: Int, final: Bool) -> ([UInt8], Int)? {
        var j = i + 1
        while j < bytes.count, j - i < 40, bytes[j] != UInt8(ascii: ";"), Self.isNameByte(bytes[j]) || bytes[j] == UInt8(ascii: "#") { j += 1 }
        if j == bytes.count && !final { return nil }
        let escaped = Array("&amp;".utf8)
        guard j < bytes.count, bytes[j] == UInt8(ascii: ";"), j > i + 1 else {
            repairs.entities += 1
            return (escaped, 1)
        }
        let name = String(decoding: bytes[(i + 1)..<j], as: UTF8.self)
        let whole = Array(bytes[i...j])
        if name.hasPrefix("#") {
            guard let value = Self.characterValue(name.dropFirst()) else {
                repairs.entities += 1
                return (escaped, 1)
            }
            guard Self.isXMLCharacter(value) else {
                repairs.controlCharacters += 1
                return ([], whole.count)
            }
            return (whole, whole.count)
        }
        if Self.xmlEntities.contains(name) || declared.contains(name) { return (whole, whole.count) }
        repairs.entities += 1
        if let scalar = HTMLEntities.scalars[name] { return (Array("&#\(scalar);".utf8), whole.count) }
        return (escaped, 1)
    }

    /// The value of `123` or `x7B`; nil when it is not a number.
    private static func characterValue(_ digits: Substring) -> UInt32? {
        if digits.first == "x" || digits.first == "X" { return UInt32(digits.dropFirst(), radix: 16) }
        return UInt32(digits, radix: 10)
    }

    /// XML 1.0's Char production.
    static func isXMLCharacter(_ value: UInt32) -> Bool {
        switch value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    private static func isNameByte(_ b: UInt8) -> Bool {
        (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == UInt8(ascii: "_") || b == UInt8(ascii: ".")
            || b == UInt8(ascii: "-") || b == UInt8(ascii: ":") || b >= 0x80
    }

    private static let xmlEntities: Set<String> = ["amp", "lt", "gt", "quot", "apos"]
}
