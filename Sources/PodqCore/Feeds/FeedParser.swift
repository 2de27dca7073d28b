import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A streaming (SAX) parser for RSS 2.0, 0.9x and 1.0, Atom 1.0, the iTunes namespace and Media RSS,
/// fed from a file: never `XMLParser(data:)`, which fails above ~10 MB.
///
/// libxml2 underneath refuses billion-laughs and never opens external entities; the declared charset
/// is honoured; an undeclared HTML entity such as `&nbsp;` (common in sloppy feeds) makes the parser
/// repair the file once (see ``EntityRepair``) and try again. Items without an enclosure are counted,
/// not returned (docs/FEEDS.md).
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
        let input = try FeedInput.prepare(path)
        defer { if input.isCopy { unlink(input.path) } }
        let path = input.path
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
        guard let stream = InputStream(fileAtPath: path) else { throw .unreadable(path: path, reason: "cannot open") }
        let parser = XMLParser(stream: stream)
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        let delegate = FeedParserDelegate(baseURL: baseURL, keepNotes: keepNotes)
        parser.delegate = delegate
        let ok = parser.parse()
        if let failure = delegate.failure { throw failure }
        if !ok || delegate.error != nil || parser.parserError != nil {
            let error = delegate.error ?? parser.parserError
            let reason = Self.describe(error)
            if reason.contains("mplification") || reason.contains("loop") || reason.contains("xternal") {
                throw .hostileEntities
            }
            throw .malformed(line: delegate.errorLine ?? parser.lineNumber, column: delegate.errorColumn ?? parser.columnNumber, reason: reason)
        }
        guard delegate.sawRoot else { throw .malformed(line: 1, column: 1, reason: "the file is empty") }
        guard delegate.isFeed else { throw .notAFeed(root: delegate.rootName) }
        return delegate.feed
    }

    static func describe(_ error: (any Error)?) -> String {
        guard let error else { return "unknown error" }
        let ns = error as NSError
        if let text = ns.userInfo[NSLocalizedDescriptionKey] as? String, !text.isEmpty, !text.hasPrefix("The operation") {
            return SafeText.clean(text)
        }
        // libxml2's numbers: 26 undeclared entity, 27/89 entity loops and external entities.
        switch ns.code {
        case 26: return "undeclared entity"
        case 89, 104: return "entity loop or external entity"
        case 5: return "the document ends too early (truncated?)"
        case 76: return "an end tag does not match its start tag"
        default: break
        }
        if let code = XMLParser.ErrorCode(rawValue: ns.code) {
            switch code {
            case .undeclaredEntityError, .entityNotFinishedError: return "undeclared entity"
            case .entityBoundaryError, .entityIsExternalError, .entityRefLoopError: return "entity loop or external entity"
            case .prematureDocumentEndError: return "the document ends too early (truncated?)"
            case .tagNameMismatchError: return "an end tag does not match its start tag"
            default: return "XML error \(ns.code)"
            }
        }
        return "XML error \(ns.code)"
    }
}
