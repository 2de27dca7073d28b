import CFeedXML
import FoundationEssentials
import Glibc
import PodqBase

/// The feeds a web page advertises, for `podq add https://show.example/`: its
/// `<link rel="alternate" type="application/rss+xml">` (or Atom) elements, in page order; when it has
/// none, its "subscribe" buttons' podcast links (`itpc://`, `podcast://`, `feed://`), then links that
/// look like a podcast feed (`…/feed`, `….rss`, a `feeds.` host). Read with libxml2's
/// HTML parser, which reads any page however broken; relative links resolve against `<base href>` and
/// the page's URL.
public enum WebPageFeeds {
    /// A feed found on a page.
    public struct Candidate: Sendable, Equatable {
        /// Absolute, http(s).
        public var url: String
        /// The link's `title`, cleaned; "" when it has none.
        public var title: String
    }

    /// True when the file at `path` is an HTML document: an HTML doctype, or an HTML element (`html`,
    /// `head`, `body`…) as its first (after any XML declaration, comments and processing instructions).
    public static func looksLikeHTML(_ path: String) -> Bool {
        guard let handle = PlainFile(forReadingAtPath: path) else { return false }
        defer { handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 4096)) ?? Data())
        let text = String(decoding: head, as: UTF8.self).lowercased()
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "<") {
            let after = rest[rest.index(after: open)...]
            if after.hasPrefix("!doctype") { return after.dropFirst(8).drop(while: \.isWhitespace).hasPrefix("html") }
            if after.hasPrefix("!--") {
                guard let end = after.firstRange(of: "-->") else { return false }
                rest = after[end.upperBound...]
            } else if after.hasPrefix("?") || after.hasPrefix("!") {
                guard let end = after.firstIndex(of: ">") else { return false }
                rest = after[after.index(after: end)...]
            } else {
                let name = after.prefix { $0.isLetter || $0.isNumber || $0 == ":" || $0 == "-" }
                // HTML may leave out its <html> and <head> tags.
                return ["html", "head", "body", "meta", "link", "title", "script", "style", "div"].contains(String(name))
            }
        }
        return false
    }

    /// The feeds the page at `path` links to, the advertised ones first; empty for none.
    /// Throws only when libxml2 cannot be loaded (``FeedError/parserUnavailable(reason:)``).
    public static func find(file path: String, pageURL: URL) throws(FeedError) -> [Candidate] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        let links = Links()
        let box = Unmanaged.passUnretained(links).toOpaque()
        // A page that names no charset is read as UTF-8 (what the web writes today), not as
        // libxml2's HTML default of ISO-8859-1; one that names it is read as it says.
        let encoding: String? = declaresCharset(path) ? nil : "UTF-8"
        let status = podq_html_links(fd, encoding, box) { context, element, rel, type, href, title in
            guard let context, let element, let href else { return }
            let links = Unmanaged<Links>.fromOpaque(context).takeUnretainedValue()
            links.all.append(
                Link(
                    element: String(cString: element).lowercased(), rel: rel.map { String(cString: $0).lowercased() } ?? "",
                    type: type.map { String(cString: $0).lowercased() } ?? "", href: String(cString: href),
                    title: title.map { String(cString: $0) } ?? ""))
        }
        if status == -2 {
            var reason = [CChar](repeating: 0, count: 200)
            _ = podq_xml_available(&reason, UInt(reason.count))
            throw .parserUnavailable(reason: String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        var base = pageURL
        if let tag = links.all.first(where: { $0.element == "base" }), let url = URL(string: tag.href.trimmingASCIIWhitespace, relativeTo: pageURL) {
            base = url.absoluteURL
        }
        var seen: Set<String> = []
        func candidate(_ link: Link) -> Candidate? {
            // A "subscribe" button's `itpc://`, `podcast://`, `feed://` link names the feed.
            let href = PodcastLink.resolve(link.href.trimmingASCIIWhitespace)
            guard let url = URL(string: href, relativeTo: base)?.absoluteURL,
                let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false,
                seen.insert(url.absoluteString).inserted
            else { return nil }
            return Candidate(url: url.absoluteString, title: SafeText.clean(link.title))
        }
        let advertised = links.all.filter {
            ($0.element == "link" || $0.element == "a") && feedTypes.contains($0.type)
                && ($0.element == "a" || $0.rel.split(separator: " ").contains("alternate"))
        }
        .compactMap(candidate)
        if !advertised.isEmpty { return advertised }
        let buttons = links.all.filter { $0.element == "a" && PodcastLink.isPodcastLink($0.href.trimmingASCIIWhitespace) }
        return (buttons + links.all.filter { $0.element == "a" && looksLikeFeed($0.href) }).compactMap(candidate)
    }

    /// True when the page's first 4 KiB name a charset (`<meta charset=…>`, `content="…; charset=…"`).
    private static func declaresCharset(_ path: String) -> Bool {
        guard let handle = PlainFile(forReadingAtPath: path) else { return false }
        defer { handle.close() }
        let head = String(decoding: (try? handle.read(upToCount: 4096)) ?? Data(), as: UTF8.self).lowercased()
        return head.contains("charset=") || head.contains("charset =")
    }

    private static let feedTypes: Set<String> = ["application/rss+xml", "application/atom+xml", "application/rdf+xml", "application/xml", "text/xml"]

    /// A link whose address reads like a feed's: `…/feed`, `…/rss`, `….rss`, `….xml`, or a `feeds.` host.
    static func looksLikeFeed(_ href: String) -> Bool {
        guard let url = URL(string: href.trimmingASCIIWhitespace) else { return false }
        let path = "/" + url.path.lowercased()
        let host = url.host?.lowercased() ?? ""
        return host.hasPrefix("feeds.") || host.hasPrefix("feed.") || path.hasSuffix(".rss") || path.hasSuffix("/rss") || path.hasSuffix("/feed")
            || path.hasSuffix("/feed.xml") || path.hasSuffix("/rss.xml") || path.hasSuffix("/podcast.xml")
    }

    private struct Link {
        var element: String
        var rel: String
        var type: String
        var href: String
        var title: String
    }

    private final class Links {
        var all: [Link] = []
    }
}
