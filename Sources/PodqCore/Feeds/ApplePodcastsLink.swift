import FoundationEssentials
import Glibc
import PodqBase

/// An Apple Podcasts page (`https://podcasts.apple.com/us/podcast/some-show/id123456789`), the link
/// people copy most: its page links to no feed, so the feed is asked of Apple's public lookup
/// (`https://itunes.apple.com/lookup?id=…&entity=podcast`, its `feedUrl`), as podcast apps do.
public enum ApplePodcastsLink {
    /// Where the lookup is asked (`PODQ_APPLE_LOOKUP` replaces it, for tests and mirrors).
    public static var lookupBase: String {
        ProcessInfo.processInfo.environment["PODQ_APPLE_LOOKUP"].flatMap { $0.isEmpty ? nil : $0 } ?? "https://itunes.apple.com/lookup"
    }

    /// The podcast's id when `url` is an Apple Podcasts page; nil otherwise.
    public static func podcastID(of url: URL) -> String? {
        guard let host = url.host?.lowercased(), host == "podcasts.apple.com" || host == "itunes.apple.com" else { return nil }
        let idPart = url.path.split(separator: "/").last { $0.hasPrefix("id") && $0.count > 2 && $0.dropFirst(2).allSatisfy(\.isNumber) }
        if let idPart { return String(idPart.dropFirst(2)) }
        // `…/podcast?id=123`
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "id" }?.value
        return query.flatMap { $0.allSatisfy(\.isNumber) && !$0.isEmpty ? $0 : nil }
    }

    /// The lookup URL for `id`.
    public static func lookupURL(id: String) -> URL? {
        URL(string: lookupBase + "?id=" + id + "&entity=podcast")
    }

    /// The feed URL in a lookup answer (JSON, `results[].feedUrl`); nil when there is none.
    public static func feedURL(inLookup data: Data) -> String? {
        guard let object = JSONTree.any(data) as? [String: Any],
            let results = object["results"] as? [[String: Any]]
        else { return nil }
        for result in results {
            if let feed = result["feedUrl"] as? String, let url = URL(string: feed),
                let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
            {
                return feed
            }
        }
        return nil
    }
}
