import CFeedXML
import FoundationEssentials
import Glibc
import PodqBase

/// A streaming (SAX) parser for RSS 2.0, 0.9x and 1.0, Atom 1.0, the iTunes namespace and Media RSS,
/// fed from a file through libxml2's SAX2 parser (``FeedXMLReader``; never a whole document in memory).
///
/// Hostile input is refused: entities that expand without end (libxml2's limits) or past
/// ``FeedLimits`` (quadratic expansion), anything external, files over the size cap. Careless input
/// is read, and what was mended is reported in ``Feed/repairs``: the declared charset is honoured
/// (``FeedInput``); a feed libxml2 refuses is repaired once (``FeedRepair``: bad bytes, control
/// characters, HTML entities) and, if it still fails, read with libxml2's recovery. Only a document
/// in which no RSS or Atom root can be found is refused as malformed. Items without an enclosure are
/// counted, not returned (docs/FEEDS.md).
public enum FeedParser {
    /// The default size cap.
    public static let defaultSizeLimit: Int64 = FeedLimits.standard.fileSize

    /// Parses the feed file at `path`; relative URLs resolve against `baseURL` (the feed's URL).
    /// - Parameters:
    ///   - sizeLimit: the file's size cap (`feed-size-limit`); the other caps come from `limits`.
    ///   - keepNotes: false to skip episode descriptions (saves memory when they are not shown).
    /// - Throws: ``FeedError``.
    public static func parse(
        file path: String, baseURL: URL? = nil, sizeLimit: Int64 = defaultSizeLimit,
        limits: FeedLimits = .standard, keepNotes: Bool = true
    ) throws(FeedError) -> Feed {
        try parse(file: path, baseURL: baseURL, sizeLimit: sizeLimit, limits: limits, keepNotes: keepNotes, gunzipLevels: 2)
    }

    /// `gunzipLevels`: how many gzip layers may still be taken off (a gzip quine, which holds itself,
    /// would otherwise never end).
    private static func parse(
        file path: String, baseURL: URL?, sizeLimit: Int64, limits: FeedLimits, keepNotes: Bool,
        gunzipLevels: Int
    ) throws(FeedError) -> Feed {
        var limits = limits
        limits.fileSize = sizeLimit
        var info = stat()
        guard stat(path, &info) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .unreadable(path: path, reason: "it is \(OwnFile.describe(info.st_mode)), not a regular file") }
        guard Int64(info.st_size) <= limits.fileSize else { throw .tooLarge(limit: limits.fileSize) }
        guard info.st_size > 0 else { throw .malformed(line: 1, column: 1, reason: "the file is empty") }
        // Still gzip (compressed twice on the way, or a .xml.gz as it is): read what it holds.
        if gunzipLevels > 0, let unzipped = try gunzipped(path, limit: limits.fileSize) {
            defer { unlink(unzipped) }
            return try parse(
                file: unzipped, baseURL: baseURL, sizeLimit: sizeLimit, limits: limits, keepNotes: keepNotes,
                gunzipLevels: gunzipLevels - 1)
        }
        if let kind = sniffNotXML(path) { throw .notXML(kind: kind) }
        let context = Context(baseURL: baseURL, limits: limits, fileSize: Int64(info.st_size), keepNotes: keepNotes)
        return try readRepairing(path) { (path, recover) throws(FeedError) -> Feed in
            try parseOnce(path: path, context, recover: recover)
        } update: { feed, repairs in
            var all = repairs
            all.add(feed.repairs)
            feed.repairs = all
        }
    }

    /// Reads an XML document the way feed readers do: as it is; if libxml2 refuses it, from a
    /// repaired copy (``FeedRepair``); if that fails too, with libxml2's recovery. `parse` is one
    /// pass (the path, and whether to recover); it throws ``FeedError/malformed(line:column:reason:)``
    /// for a document it cannot use, and the first such error is what the caller sees. `update`
    /// records what was mended in the result.
    static func readRepairing<T>(
        _ path: String, parse: (String, Bool) throws(FeedError) -> T,
        update: (inout T, FeedRepairs) -> Void
    ) throws(FeedError) -> T {
        // A UTF-8 file goes to libxml2 as it is; only a file it refuses is repaired.
        let input = try FeedInput.prepare(path, checkUTF8: false)
        defer { if input.isCopy { unlink(input.path) } }
        let strictError: FeedError
        do {
            return try parse(input.path, false)
        } catch {
            guard case .malformed = error else { throw error }
            strictError = error
        }
        let repaired = try FeedRepair.repair(file: input.path)
        defer { if let repaired { unlink(repaired.path) } }
        let source = repaired?.path ?? input.path
        let repairs = repaired?.repairs ?? FeedRepairs()
        if repaired != nil {
            do {
                var result = try parse(source, false)
                update(&result, repairs)
                return result
            } catch {
                guard case .malformed = error else { throw error }
            }
        }
        // Repair was not enough (a tag left open, markup in the wrong place): libxml2's recovery.
        do {
            var result = try parse(source, true)
            update(&result, repairs)
            return result
        } catch {
            guard case .malformed = error else { throw error }
            throw strictError
        }
    }

    /// What every pass over one feed shares.
    struct Context {
        let baseURL: URL?
        let limits: FeedLimits
        let fileSize: Int64
        let keepNotes: Bool
    }

    private static func parseOnce(path: String, _ context: Context, recover: Bool) throws(FeedError) -> Feed {
        let builder = FeedBuilder(
            baseURL: context.baseURL, keepNotes: context.keepNotes, limits: context.limits,
            textBudget: context.fileSize + context.limits.expansion)
        let outcome = try FeedXMLReader.parse(path: path, handler: builder, recover: recover)
        builder.finish()
        switch outcome {
        case .wellFormed:
            break
        case .external, .entityLoop:
            throw .hostileEntities
        case .stopped:
            throw builder.limitReached ?? .hostileEntities
        case .malformed(let code, let line, let column, let message):
            let reason = describe(code: code, message: message)
            if reason.contains("mplification") || reason.contains("loop") { throw .hostileEntities }
            throw .malformed(line: max(line, 1), column: max(column, 1), reason: reason)
        case .recovered(let count, let line, let column, let code, let message):
            let reason = describe(code: code, message: message)
            if reason.contains("mplification") || reason.contains("loop") { throw .hostileEntities }
            // Recovery that finds no channel has recovered nothing.
            guard builder.sawRoot, builder.isFeed, builder.sawChannel else {
                throw .malformed(line: max(line, 1), column: max(column, 1), reason: reason)
            }
            builder.feed.repairs.recoveredErrors = count
            builder.feed.repairs.firstRecoveredError = "line \(max(line, 1)), column \(max(column, 1)): \(reason)"
        }
        guard builder.sawRoot else { throw .malformed(line: 1, column: 1, reason: "it holds no XML element") }
        guard builder.isFeed else { throw .notAFeed(root: builder.rootName) }
        return builder.feed
    }

    /// What the file looks like when its first bytes say it is a known binary format, not XML
    /// (`podq add` given an episode's URL); nil otherwise.
    /// A temporary file with what the gzip file at `path` holds; nil when `path` is not gzip.
    /// - Throws: ``FeedError/tooLarge(limit:)`` past `limit` bytes, ``FeedError/notXML(kind:)`` for a
    ///   damaged stream.
    static func gunzipped(_ path: String, limit: Int64) throws(FeedError) -> String? {
        let input = open(path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { return nil }
        defer { close(input) }
        var magic: (UInt8, UInt8) = (0, 0)
        guard read(input, &magic, 2) == 2, magic == (0x1F, 0x8B), lseek(input, 0, SEEK_SET) == 0 else { return nil }
        let target = LexicalPath.join(LexicalPath.temporaryFolder, "podq-gunzip-\(UUID().uuidString).xml")
        let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw .unreadable(path: target, reason: String(cString: strerror(errno))) }
        let written = podq_gunzip(input, output, limit)
        close(output)
        guard written >= 0 else {
            unlink(target)
            if written == -2 { throw .tooLarge(limit: limit) }
            throw .notXML(kind: "a damaged gzip-compressed file")
        }
        return target
    }

    /// What the file's first bytes say it is when not XML (a known binary format, or data that does not
    /// start with `<`), from one read of its first 64 bytes; nil when it may be XML.
    static func sniffNotXML(_ path: String) -> String? {
        guard let handle = PlainFile(forReadingAtPath: path) else { return nil }
        defer { handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 64)) ?? Data())
        return sniffNotXML(bytes: head) ?? notStartingWithXML(bytes: head)
    }

    /// What the first bytes of a file (16 are enough) say it is, when not XML: an audio file, an image…
    static func sniffNotXML(bytes head: [UInt8]) -> String? {
        func starts(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + bytes.count && Array(head[offset..<(offset + bytes.count)]) == bytes
        }
        if starts(Array("ID3".utf8)) || (head.count >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0 && head[1] != 0xFE) { return "an audio file (MP3)" }
        if starts(Array("ftyp".utf8), at: 4) { return "an audio or video file (MP4/M4A)" }
        if starts(Array("OggS".utf8)) { return "an audio file (Ogg)" }
        if starts(Array("fLaC".utf8)) { return "an audio file (FLAC)" }
        if starts(Array("RIFF".utf8)) { return "an audio file (WAV)" }
        if starts(Array("%PDF".utf8)) { return "a PDF document" }
        if starts([0x89, 0x50, 0x4E, 0x47]) || starts([0xFF, 0xD8, 0xFF]) || starts(Array("GIF8".utf8)) { return "an image" }
        if starts([0x1F, 0x8B]) { return "a file compressed with gzip more than twice" }
        if starts(Array("PK".utf8) + [3, 4]) { return "a ZIP archive" }
        return nil
    }

    /// "data that does not start with XML (it starts with …)" when the file's first byte that is not
    /// white space (after a byte-order mark) is not `<`; nil for an empty file, or one that starts as
    /// XML does. libxml2 calls such a file "empty" (its error 4), which it is not.
    static func notStartingWithXML(bytes: [UInt8]) -> String? {
        var head = bytes[...]
        if head.starts(with: [0xEF, 0xBB, 0xBF]) { head = head.dropFirst(3) }
        // UTF-16 (with its mark, or `<` as 00 3C / 3C 00) is read as such.
        if head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0x00, 0x3C]) { return nil }
        head = head.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard let first = head.first, first != UInt8(ascii: "<") else { return nil }
        let shown = head.prefix(12).map { byte -> String in
            (0x21...0x7E).contains(byte) ? String(UnicodeScalar(byte)) : String(printf: "\\x%02X", byte)
        }.joined()
        return "data that does not start with XML (it starts with “\(shown)”)"
    }

    /// libxml2's message, cleaned, or a plain reason for its error number.
    static func describe(code: Int, message: String) -> String {
        // libxml2's numbers (xmlParserErrors): 4 empty document, 5 ends too early, 26 undeclared entity,
        // 76 mismatched end tag, 89 entity loop.
        switch code {
        case 4: return "nothing in it is XML"
        case 5: return "the document ends too early (truncated?)"
        case 89: return "entity loop or amplification"
        default: break
        }
        let text = SafeText.clean(message).trimmingASCIIWhitespace
        if !text.isEmpty { return text }
        switch code {
        case 26: return "undeclared entity"
        case 76: return "an end tag does not match its start tag"
        default: return "XML error \(code)"
        }
    }
}
