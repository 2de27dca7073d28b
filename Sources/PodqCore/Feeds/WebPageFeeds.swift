import CFeedXML
import Foundation

/// The feeds a web page advertises, for `podq add https://show.example/`: its
/// `<link rel="alternate" type="application/rss+xml">` (or Atom) elements, in page order; when it has
/// none, links that look like a podcast feed (`…/feed`, `….rss`, a `feeds.` host). Read with libxml2's
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

    /// True when the file at `path` starts (after a BOM and white space) like an HTML document.
    public static func looksLikeHTML(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 512)) ?? Data())
        var text = String(decoding: head, as: UTF8.self).lowercased()
        text = String(text.drop { $0 == "\u{FEFF}" || $0.isWhitespace })
        // An XML declaration or a comment may come first; what matters is the first element.
        return text.hasPrefix("<!doctype html") || text.hasPrefix("<html") || (text.contains("<html") && !text.contains("<rss") && !text.contains("<feed"))
    }

    /// The feeds the page at `path` links to, the advertised ones first; empty for none.
    public static func find(file path: String, pageURL: URL) -> [Candidate] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        let links = Links()
        let box = Unmanaged.passUnretained(links).toOpaque()
        _ = podq_html_links(fd, box) { context, element, rel, type, href, title in
            guard let context, let element, let href else { return }
            let links = Unmanaged<Links>.fromOpaque(context).takeUnretainedValue()
            links.all.append(Link(element: String(cString: element).lowercased(), rel: rel.map { String(cString: $0).lowercased() } ?? "",
                                  type: type.map { String(cString: $0).lowercased() } ?? "", href: String(cString: href),
                                  title: title.map { String(cString: $0) } ?? ""))
        }
        var base = pageURL
        if let tag = links.all.first(where: { $0.element == "base" }), let url = URL(string: tag.href.trimmingASCIIWhitespace, relativeTo: pageURL) {
            base = url.absoluteURL
        }
        var seen: Set<String> = []
        func candidate(_ link: Link) -> Candidate? {
            guard let url = URL(string: link.href.trimmingASCIIWhitespace, relativeTo: base)?.absoluteURL,
                  let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false,
                  seen.insert(url.absoluteString).inserted
            else { return nil }
            return Candidate(url: url.absoluteString, title: SafeText.clean(link.title))
        }
        let advertised = links.all.filter { ($0.element == "link" || $0.element == "a") && feedTypes.contains($0.type)
                                            && ($0.element == "a" || $0.rel.split(separator: " ").contains("alternate")) }
            .compactMap(candidate)
        if !advertised.isEmpty { return advertised }
        return links.all.filter { $0.element == "a" && looksLikeFeed($0.href) }.compactMap(candidate)
    }

    private static let feedTypes: Set<String> = ["application/rss+xml", "application/atom+xml", "application/rdf+xml", "application/xml", "text/xml"]

    /// A link whose address reads like a feed's: `…/feed`, `…/rss`, `….rss`, `….xml`, or a `feeds.` host.
    static func looksLikeFeed(_ href: String) -> Bool {
        guard let url = URL(string: href.trimmingASCIIWhitespace) else { return false }
        let path = url.path.lowercased()
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
