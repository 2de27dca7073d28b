import FoundationEssentials
import Glibc

/// A login for one server: sent as HTTP Basic to that host only (its scheme, host and port), never to
/// another one a redirect leads to, and never over plain HTTP when it was given for HTTPS.
///
/// Its `description` never holds the password: a `Credentials` printed by mistake leaks nothing.
public struct Credentials: Sendable, Equatable, CustomStringConvertible {
    public var user: String
    public var password: String
    /// The host the login belongs to, lowercased.
    public var host: String
    /// Its port (the scheme's default when the URL gives none).
    public var port: Int
    /// True when the login was given for an https URL: it is then never sent over http.
    public var secure: Bool

    public init(user: String, password: String, for url: URL) {
        self.user = user
        self.password = password
        self.host = url.host?.lowercased() ?? ""
        self.secure = url.scheme?.lowercased() == "https"
        self.port = url.port ?? (secure ? 443 : 80)
    }

    /// True when a request to `url` may carry the login: the same host and port, and https when it was.
    public func applies(to url: URL) -> Bool {
        let https = url.scheme?.lowercased() == "https"
        return url.host?.lowercased() == host && (url.port ?? (https ? 443 : 80)) == port && (https || !secure)
    }

    /// `scheme://host:port` of `url`, the port always written (`https://example.com:443`): where a
    /// login given for `url` may go (``PodcastRecord/loginOrigin``). Nil for a URL without a host.
    public static func origin(of url: URL) -> String? {
        guard let host = url.host?.lowercased(), !host.isEmpty, let scheme = url.scheme?.lowercased() else { return nil }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed):\(url.port ?? (scheme == "https" ? 443 : 80))"
    }

    /// The `Authorization` header's value.
    public var authorization: String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    public var description: String { "\(user):***@\(host)" }

    /// `url` without its user information, and the login it carried (percent-decoded), if any:
    /// `https://me:s%40cret@host/feed` → `https://host/feed` and me / s@cret.
    public static func split(_ url: URL) -> (url: URL, credentials: Credentials?) {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            components.percentEncodedUser != nil || components.percentEncodedPassword != nil
        else { return (url, nil) }
        let user = components.user ?? ""
        let password = components.password ?? ""
        components.percentEncodedUser = nil
        components.percentEncodedPassword = nil
        let clean = components.url ?? url
        return (clean, Credentials(user: user, password: password, for: clean))
    }
}

/// What a request carries for one podcast beyond the defaults: its login and its own `User-Agent`
/// (the core's `PodcastAccess` is one).
public protocol HTTPAccess: Sendable {
    var credentials: Credentials? { get }
    var userAgent: String? { get }
}
