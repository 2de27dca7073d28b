import FoundationEssentials
import Glibc
import PodqBase

/// URLs and numbers as the feed writes them.
extension FeedBuilder {
    /// `text` as an absolute http(s) URL, resolved against ``currentBase`` (the innermost `xml:base`, else
    /// the feed's URL); nil for other schemes.
    @_optimize(speed)
    func resolve(_ text: String) -> String? {
        let trimmed = text.trimmingASCIIWhitespace
        guard !trimmed.isEmpty else { return nil }
        if Self.isPlainAbsoluteHTTP(trimmed) { return trimmed }  // the common case, without Foundation
        let escaped = PercentEncoding.encode(trimmed, allowing: Self.urlCharacters)
        guard let url = URL(string: escaped, relativeTo: currentBase)?.absoluteURL else { return nil }
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false else { return nil }
        // `Https://` is the same scheme: written lowercase, so keys and checks compare alike (FuzzFeed).
        let absolute = url.absoluteString
        guard let colon = absolute.firstIndex(of: ":"), absolute[..<colon] != scheme else { return absolute }
        return scheme + absolute[colon...]
    }

    /// True for `http(s)://…` made only of characters a URL may hold as they are.
    @_optimize(speed)
    static func isPlainAbsoluteHTTP(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.starts(with: "https://".utf8) || utf8.starts(with: "http://".utf8) else { return false }
        for b in utf8 {
            if b <= 0x20 || b >= 0x7F { return false }
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"), UInt8(ascii: "^"),
                UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"):
                return false
            default: continue
            }
        }
        return true
    }

    /// What a URL may hold as it is; anything else is percent-encoded.
    static let urlCharacters = PercentEncoding.Allowed.urlQuery.adding("#%")

    static func length(_ text: String?) -> Int64? {
        guard let text, let n = Int64(text.trimmingASCIIWhitespace), n > 0 else { return nil }
        return n
    }
}
