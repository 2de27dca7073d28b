import FoundationEssentials
import Glibc
import PodqBase
import PodqHTTP

/// Whether a downloaded episode changed on the publisher's side (issue 18, point 3): a refresh that
/// shows it with another file, or a length that moved beyond what inserted ads account for. Pure.
public enum UpstreamChange {
    /// A length change is news only beyond both: 20% of the file, and 2 MB (dynamically inserted ads
    /// move a length by a minute or two of audio, about 1–2 MB at podcast bit rates).
    static let relativeNoise = 0.2
    static let absoluteNoise: Int64 = 2_000_000

    /// Why the episode changed upstream, or nil when it did not.
    /// - Parameters:
    ///   - oldURL, newURL: the enclosure as downloaded and as the feed gives it now.
    ///   - oldLength, newLength: the feed's stated lengths then and now.
    ///   - fileSize: the size of the file podq downloaded.
    public static func detect(oldURL: String, newURL: String, oldLength: Int64?, newLength: Int64?, fileSize: Int64?) -> String? {
        if fileKey(oldURL) != fileKey(newURL) {
            return "the feed now gives another file: \(SafeText.redactingCredentials(SafeText.clean(newURL)))"
        }
        guard let newLength, newLength > 0 else { return nil }
        // The feed's old length may be a placeholder, so the new one must differ from what was
        // downloaded as well as from what the feed said.
        let differs = { (other: Int64?) -> Bool in
            guard let other, other > 0 else { return true }
            let delta = abs(newLength - other)
            return delta > absoluteNoise && Double(delta) > relativeNoise * Double(max(newLength, other))
        }
        if differs(oldLength) && differs(fileSize), oldLength != nil || fileSize != nil {
            return "its length changed from \(fileSize ?? oldLength ?? 0) to \(newLength) bytes"
        }
        return nil
    }

    /// Why the server's file is no longer the one downloaded (`podq refresh --check-files`), from a
    /// probe's answer: its total length moved beyond ad noise, or its `Last-Modified` is later than the
    /// one saved and its length differs at all. Nil when it did not change, or when the answer says
    /// too little (a server that gives no length).
    public static func detect(stored: ResourceValidators?, size: Int64, total: Int64?, lastModified: String?) -> String? {
        guard let total, total > 0 else { return nil }
        let delta = abs(total - size)
        if delta > absoluteNoise && Double(delta) > relativeNoise * Double(max(total, size)) {
            return "the server's file is \(total) bytes; podq downloaded \(size)"
        }
        if delta > 0, let now = lastModified.flatMap(FeedDate.parse), let then = stored?.lastModified.flatMap(FeedDate.parse), now > then {
            return "the server's file changed on \(FeedDate.day(now)) and is \(total) bytes; podq downloaded \(size)"
        }
        return nil
    }

    /// The file a URL names: without its tracking prefixes (a switch of analytics service is not a
    /// new file) and as ``EpisodeRecord/key(for:)`` compares enclosures.
    static func fileKey(_ url: String) -> String {
        guard var current = URL(string: url) else { return EpisodeRecord.key(for: url) }
        var hops = 0
        while let inner = TrackingPrefix.innerURL(of: current), hops < 10 {
            current = inner
            hops += 1
        }
        // The scheme aside: a prefix often drops or adds it.
        let text = current.absoluteString
        let bare = text.firstRange(of: "://").map { String(text[$0.upperBound...]) } ?? text
        return EpisodeRecord.key(for: bare)
    }
}
