import FoundationEssentials
import Glibc
import PodqBase

/// Analytics prefixes in front of an episode's URL: podtrac `…/redirect.mp3/<host>/<path>`, pdst.fm and
/// OP3 `…/e/<host>/<path>`, chartable `…/track/<id>/<host>/<path>`, podscribe, and the like, which
/// count a download and redirect to the URL they carry.
///
/// A prefix is recognised by its shape, not by a list of trackers (new ones appear every year and old
/// ones shut down): a path segment that is a host name or address, with more path after it; or a whole
/// URL inside the path or the query, as it is or percent-encoded (`http%3A%2F%2F…`). When a hop of a
/// chain fails for a reason that is not the file's, ``RedirectFollower`` goes on from the URL inside.
public enum TrackingPrefix {
    /// The URL `url` carries for the next hop, with `url`'s scheme when the inner one has none; nil
    /// when its shape carries none.
    public static func innerURL(of url: URL) -> URL? {
        // Only an http(s) hop carries one (FuzzHeaders: `wps://…/t.st/…` made a `wps:` URL).
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        let text = url.absoluteString
        guard let schemeEnd = text.firstRange(of: "://") else { return nil }
        let afterScheme = text[schemeEnd.upperBound...]
        guard let slash = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return nil }
        let rest = afterScheme[slash...]
        if let embedded = embeddedURL(in: rest) { return embedded }
        let (pathPart, query) = split(rest)
        let segments = pathPart.split(separator: "/", omittingEmptySubsequences: false).dropFirst()  // the path starts with "/"
        let list = Array(segments)
        guard list.count >= 2 else { return nil }
        for i in 0..<(list.count - 1) where isHost(list[i]) && !list[(i + 1)...].joined().isEmpty {
            let inner = scheme + "://" + list[i...].joined(separator: "/") + (query.map { "?" + $0 } ?? "")
            guard let found = URL(string: inner), found.host?.isEmpty == false else { continue }
            return found
        }
        return nil
    }

    /// A whole `http(s)://` URL written inside `rest` (the path and query), as it is or percent-encoded.
    private static func embeddedURL(in rest: Substring) -> URL? {
        let lowered = rest.lowercased()
        for marker in ["https%3a%2f%2f", "http%3a%2f%2f", "https://", "http://", "https:/", "http:/"] {
            guard let found = lowered.firstRange(of: marker) else { continue }
            let offset = lowered.distance(from: lowered.startIndex, to: found.lowerBound)
            var candidate = String(rest.dropFirst(offset))
            let inQuery = rest.prefix(offset).contains("?")
            if marker.contains("%") {
                // Encoded: it ends where its parameter does.
                if inQuery, let amp = candidate.firstIndex(of: "&") { candidate = String(candidate[..<amp]) }
                guard let decoded = PercentEncoding.decode(candidate) else { continue }
                candidate = decoded
            } else if marker.hasSuffix(":/") {
                // `http:/host/x`: a path that collapsed its double slash.
                candidate = String(candidate.prefix(marker.count)) + "/" + candidate.dropFirst(marker.count)
            }
            if inQuery, !marker.contains("%"), let amp = candidate.firstIndex(of: "&") { candidate = String(candidate[..<amp]) }
            guard let url = URL(string: candidate), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                url.host?.isEmpty == false
            else { continue }
            return url
        }
        return nil
    }

    private static func split(_ rest: Substring) -> (path: Substring, query: Substring?) {
        guard let mark = rest.firstIndex(of: "?") else { return (rest, nil) }
        return (rest[..<mark], rest[rest.index(after: mark)...])
    }

    /// File extensions that look like top-level domains in a path (`index.html`, `feed.xml`): a
    /// segment ending in one is a file, not a host.
    private static let fileExtensions: Set<Substring> = [
        "html", "htm", "php", "asp", "aspx", "jsp", "cgi", "xml", "rss", "atom", "json", "js", "css", "txt", "pdf",
        "aac", "ogg", "oga", "opus", "wav", "flac", "mov", "webm", "mkv", "epub", "zip", "gz", "jpg", "jpeg", "png", "gif",
    ]

    /// True for `host.tld`, `host.tld:port` or an IPv4 address (with a port): a segment that names a server.
    package static func isHost(_ segment: Substring) -> Bool {
        var name = segment
        if let colon = segment.lastIndex(of: ":") {
            let port = segment[segment.index(after: colon)...]
            guard !port.isEmpty, port.count <= 5, port.allSatisfy(\.isASCIINumber) else { return false }
            name = segment[..<colon]
        }
        let labels = name.lowercased().split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, name.count <= 253 else { return false }
        if labels.count == 4, labels.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCIINumber) && Int($0)! <= 255 }) {
            return true
        }
        for label in labels {
            guard !label.isEmpty, label.count <= 63, !label.hasPrefix("-"), !label.hasSuffix("-"),
                label.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
            else { return false }
        }
        let tld = labels.last!
        return tld.count >= 2 && tld.allSatisfy { $0.isASCII && $0.isLetter } && !fileExtensions.contains(tld)
    }
}

private extension Character {
    var isASCIINumber: Bool { isASCII && isNumber }
}
