import Foundation

/// A streaming (SAX) parser for RSS 2.0, 0.9x and 1.0, Atom 1.0, the iTunes namespace and Media RSS,
/// fed from a file through libxml2's SAX2 parser (``FeedXMLReader``; never a whole document in memory).
///
/// The document's own entities expand under libxml2's amplification limits (a billion laughs is
/// refused) and nothing external is ever opened; the declared charset is honoured (``FeedInput``); a
/// file that claims UTF-8 but is not gets a repaired copy; an undeclared HTML entity such as `&nbsp;`
/// (common in sloppy feeds) makes the parser repair the file once (see ``EntityRepair``) and try again.
/// Items without an enclosure are counted, not returned (docs/FEEDS.md).
public enum FeedParser {
    /// The default size cap.
    public static let defaultSizeLimit: Int64 = 50_000_000

    /// Parses the feed file at `path`; relative URLs resolve against `baseURL` (the feed's URL).
    /// - Parameter keepNotes: false to skip episode descriptions (saves memory when they are not shown).
    /// - Throws: ``FeedError``.
    public static func parse(file path: String, baseURL: URL? = nil, sizeLimit: Int64 = defaultSizeLimit,
                             keepNotes: Bool = true) throws(FeedError) -> Feed {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        guard Int64(info.st_size) <= sizeLimit else { throw .tooLarge(limit: sizeLimit) }
        // A UTF-8 file goes to libxml2 as it is; only when it fails is it checked for bad bytes.
        let input = try FeedInput.prepare(path, checkUTF8: false)
        defer { if input.isCopy { unlink(input.path) } }
        do {
            return try parseRepairingEntities(path: input.path, baseURL: baseURL, keepNotes: keepNotes)
        } catch {
            guard case .malformed = error, !input.isCopy else { throw error }
            let checked = try FeedInput.prepare(path, checkUTF8: true)
            guard checked.isCopy else { throw error }
            defer { unlink(checked.path) }
            return try parseRepairingEntities(path: checked.path, baseURL: baseURL, keepNotes: keepNotes)
        }
    }

    private static func parseRepairingEntities(path: String, baseURL: URL?, keepNotes: Bool) throws(FeedError) -> Feed {
        do {
            return try parseOnce(path: path, baseURL: baseURL, keepNotes: keepNotes)
        } catch {
            guard case .malformed(let line, let column, let reason) = error, !reason.contains("loop") else { throw error }
            // A sloppy feed with HTML entities or a bare `&`: repair a copy and try once more.
            guard let repaired = try EntityRepair.repair(file: path) else { throw error }
            defer { unlink(repaired) }
            do {
                return try parseOnce(path: repaired, baseURL: baseURL, keepNotes: keepNotes)
            } catch {
                if case .malformed(_, _, let second) = error { throw .malformed(line: line, column: column, reason: second) }
                throw error
            }
        }
    }

    private static func parseOnce(path: String, baseURL: URL?, keepNotes: Bool) throws(FeedError) -> Feed {
        let builder = FeedBuilder(baseURL: baseURL, keepNotes: keepNotes)
        switch try FeedXMLReader.parse(path: path, handler: builder) {
        case .wellFormed:
            break
        case .external:
            throw .hostileEntities
        case .malformed(let code, let line, let column, let message):
            let reason = describe(code: code, message: message)
            if reason.contains("mplification") || reason.contains("loop") { throw .hostileEntities }
            throw .malformed(line: max(line, 1), column: max(column, 1), reason: reason)
        }
        guard builder.sawRoot else { throw .malformed(line: 1, column: 1, reason: "the file is empty") }
        guard builder.isFeed else { throw .notAFeed(root: builder.rootName) }
        return builder.feed
    }

    /// libxml2's message, cleaned, or a plain reason for its error number.
    static func describe(code: Int, message: String) -> String {
        // libxml2's numbers (xmlParserErrors): 4 empty document, 5 ends too early, 26 undeclared entity,
        // 76 mismatched end tag, 89 entity loop.
        switch code {
        case 4: return "the file is empty"
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
