import FoundationEssentials
import Glibc

/// The links podcast apps and "subscribe" buttons hand over: `feed://host/x`, `itpc://`, `pcast://`
/// and `podcast://` mean `http://host/x`, as podcast apps read them (a server that wants https
/// redirects); `feed:https://…` and `podcast://https://…` carry the whole URL.
public enum PodcastLink {
    /// `text` as an http(s) URL when it is such a link; anything else as it is.
    public static func resolve(_ text: String) -> String {
        let lowered = text.lowercased()
        if lowered.hasPrefix("feed:http://") || lowered.hasPrefix("feed:https://") { return String(text.dropFirst(5)) }
        for scheme in schemes where lowered.hasPrefix(scheme + "://") {
            let rest = text.dropFirst(scheme.count + 3)
            // `podcast://http://…` and the like carry the whole URL.
            if rest.lowercased().hasPrefix("http://") || rest.lowercased().hasPrefix("https://") { return String(rest) }
            return "http://" + rest
        }
        return text
    }

    /// True when `text` is such a link (not a plain http(s) URL).
    public static func isPodcastLink(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("feed:") || schemes.contains { lowered.hasPrefix($0 + "://") }
    }

    static let schemes = ["feed", "itpc", "pcast", "podcast"]
}
