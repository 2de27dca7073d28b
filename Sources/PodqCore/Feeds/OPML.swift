import FoundationEssentials
import Glibc
import PodqBase

/// OPML 2.0 subscription lists, read with the same libxml2 reader as feeds (``FeedXMLReader``: no
/// external entity, no network, expansion capped) and written by hand.
public enum OPML {
    /// One subscription of the list.
    public struct Outline: Equatable, Sendable {
        /// Clean (``SafeText/clean(_:)``).
        public var title: String
        /// An absolute http(s) URL, with any space, control or non-ASCII character percent-encoded.
        public var url: String

        public init(title: String, url: String) {
            self.title = title
            self.url = url
        }
    }

    /// What a list held.
    public struct Contents: Equatable, Sendable {
        /// Every outline with an http(s) `xmlUrl`, at any depth, in document order.
        public var outlines: [Outline]
        /// Outlines whose `xmlUrl` is not an http(s) URL (`file:`, a path): skipped.
        public var skipped: Int
        /// What was mended to read the file.
        public var repairs = FeedRepairs()
    }

    /// Reads the OPML file at `path`.
    /// - Throws: ``FeedError`` (unreadable, malformed, or not OPML).
    public static func read(file path: String, limits: FeedLimits = .standard) throws(FeedError) -> Contents {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .unreadable(path: path, reason: "it is \(OwnFile.describe(info.st_mode)), not a regular file") }
        guard Int64(info.st_size) <= limits.fileSize else { throw .tooLarge(limit: limits.fileSize) }
        guard info.st_size > 0 else { throw .malformed(line: 1, column: 1, reason: "the file is empty") }
        if let kind = FeedParser.sniffNotXML(path) {
            throw .unreadable(path: path, reason: "it is not OPML: it looks like \(kind)")
        }
        let budget = Int64(info.st_size) + limits.expansion
        return try FeedParser.readRepairing(path) { (path, recover) throws(FeedError) -> Contents in
            let reader = Reader(textBudget: budget, limits: limits)
            switch try FeedXMLReader.parse(path: path, handler: reader, recover: recover) {
            case .wellFormed: break
            case .external, .entityLoop: throw .hostileEntities
            case .stopped: throw reader.limitReached ?? .hostileEntities
            case .malformed(let code, let line, let column, let message):
                throw .malformed(line: max(line, 1), column: max(column, 1), reason: FeedParser.describe(code: code, message: message))
            case .recovered(_, let line, let column, let code, let message):
                guard reader.root == "opml" else {
                    throw .malformed(line: max(line, 1), column: max(column, 1), reason: FeedParser.describe(code: code, message: message))
                }
            }
            guard reader.root == "opml" else { throw .notOPML(root: reader.root) }
            return Contents(outlines: reader.outlines, skipped: reader.skipped)
        } update: { contents, repairs in
            contents.repairs = repairs
        }
    }

    /// The list as OPML 2.0.
    public static func write(_ podcasts: [(title: String, url: String, link: String?)]) -> String {
        func esc(_ s: String) -> String {
            SafeText.clean(s).replacingEvery("&", with: "&amp;").replacingEvery("<", with: "&lt;")
                .replacingEvery(">", with: "&gt;").replacingEvery("\"", with: "&quot;")
        }
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\">\n  <head><title>podq subscriptions</title></head>\n  <body>\n"
        for p in podcasts {
            out += "    <outline type=\"rss\" text=\"\(esc(p.title))\" title=\"\(esc(p.title))\" xmlUrl=\"\(esc(p.url))\""
            if let link = p.link { out += " htmlUrl=\"\(esc(link))\"" }
            out += "/>\n"
        }
        return out + "  </body>\n</opml>"
    }

    /// `text` as an absolute http(s) URL with unsafe characters percent-encoded; nil for anything else.
    public static func httpURL(_ text: String) -> String? {
        let trimmed = text.trimmingWhitespace
        var encoded = ""
        for scalar in trimmed.unicodeScalars {
            if scalar.value <= 0x20 || scalar.value >= 0x7F || "\"<>\\^`{|}".unicodeScalars.contains(scalar) {
                for b in String(scalar).utf8 { encoded += String(printf: "%%%02X", b) }
            } else {
                encoded.unicodeScalars.append(scalar)
            }
        }
        guard let url = URL(string: encoded), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else { return nil }
        return encoded
    }

    private final class Reader: FeedXMLHandler {
        var outlines: [Outline] = []
        var skipped = 0
        var root = ""
        private var textBudget: Int64
        private let limits: FeedLimits
        private(set) var limitReached: FeedError?
        var stopRequested: Bool { limitReached != nil }

        init(textBudget: Int64, limits: FeedLimits) {
            self.textBudget = textBudget
            self.limits = limits
        }

        func start(_ tag: FeedTag, ns: String, name: String, attributes: FeedXMLAttributes) {
            if root.isEmpty { root = name }
            guard name == "outline", let raw = attributes["xmlUrl"] ?? attributes["xmlurl"] ?? attributes["xmlURL"] else { return }
            textBudget -= Int64(raw.utf8.count)
            guard textBudget >= 0 else {
                limitReached = .expansionTooLarge(limit: limits.expansion)
                return
            }
            guard !raw.trimmingSpaces.isEmpty else { return }
            guard let url = OPML.httpURL(raw) else {
                skipped += 1
                return
            }
            guard outlines.count < limits.items else {
                limitReached = .tooManyItems(limit: limits.items)
                return
            }
            outlines.append(Outline(title: SafeText.clean(attributes["title"] ?? attributes["text"] ?? ""), url: url))
        }

        func end(_ tag: FeedTag, ns: String, name: String) {}

        func text(_ bytes: UnsafeBufferPointer<UInt8>) {
            textBudget -= Int64(bytes.count)
            if textBudget < 0 { limitReached = .expansionTooLarge(limit: limits.expansion) }
        }
    }
}
