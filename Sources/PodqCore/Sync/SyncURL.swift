import FoundationEssentials
import Glibc
import PodqBase
import PodqHTTP

/// Feed and episode URLs as sync servers compare them: servers rewrite what they are sent (mygpo
/// lower-cases the host, drops a login, turns `feed://` into `http://`), and another device may have
/// a feed under `https` that podq has under `http`.
public enum SyncURL {
    /// The form two URLs are compared in: no scheme, the host in lower case without a login or a
    /// default port, the path (`/` when empty) and the query as they are, no fragment.
    public static func key(_ text: String) -> String {
        let trimmed = text.trimmingWhitespace
        guard let components = URLComponents(string: trimmed), let host = components.host, !host.isEmpty else { return trimmed.lowercased() }
        var key = host.lowercased()
        let scheme = components.scheme?.lowercased()
        if let port = components.port, !(port == 80 && (scheme == "http" || scheme == "feed")) && !(port == 443 && scheme == "https") {
            key += ":\(port)"
        }
        // Decoded: servers escape what they store (mygpo quotes `:` in a path, `+` for a space in a query).
        key += components.path.isEmpty ? "/" : components.path
        if let query = components.percentEncodedQuery, !query.isEmpty {
            key += "?" + (PercentEncoding.decode(query.replacingEvery("+", with: " ")) ?? query)
        }
        return key
    }

    /// `text` as an http(s) feed URL (`feed://`, `itpc://`, `pcast://` and `podcast://` are http), or
    /// nil: a file's path, `file:`, anything a sync server cannot take or podq should not read from one.
    public static func webFeed(_ text: String) -> String? {
        let trimmed = text.trimmingWhitespace
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty, !trimmed.contains(where: { $0.isNewline || $0 == "\0" })
        else { return nil }
        switch scheme {
        case "http", "https": return trimmed
        case "feed", "itpc", "pcast", "podcast": return "http" + trimmed.dropFirst(scheme.count)
        default: return nil
        }
    }

    /// Every form an episode's media URL may have reached a server in: as it is, without tracking
    /// parameters, and the URL inside each analytics prefix it goes through (podtrac, OP3, chartable…).
    public static func aliases(of url: String) -> Set<String> {
        var found: Set<String> = [key(url), key(EpisodeRecord.key(for: url))]
        // A prefix the server escaped (`…/redirect.mp3/host%3A8080/…`) is read unescaped.
        let unescaped = PercentEncoding.decode(url).flatMap { $0 != url ? $0 : nil }
        var next = URL(string: unescaped ?? url) ?? URL(string: url)
        var hops = 0
        while let current = next, let inner = TrackingPrefix.innerURL(of: current), hops < 8 {
            found.insert(key(inner.absoluteString))
            found.insert(key(EpisodeRecord.key(for: inner.absoluteString)))
            next = inner
            hops += 1
        }
        return found
    }
}
