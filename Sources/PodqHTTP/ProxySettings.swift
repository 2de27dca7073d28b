import FoundationEssentials
import Glibc
import PodqBase

/// Which proxy a request goes through, read as curl reads it: the config's `proxy` first (as curl's
/// `-x`), else `http_proxy` for http URLs (lower case only: `HTTP_PROXY` can be set by a CGI request's
/// `Proxy:` header, so curl ignores it), `https_proxy`/`HTTPS_PROXY` for https, then
/// `all_proxy`/`ALL_PROXY`; the lower-case name wins. `no_proxy`/`NO_PROXY` lists hosts that go direct.
public struct ProxySettings: Sendable, Equatable {
    /// A proxy server.
    public struct Server: Sendable, Hashable {
        public enum Kind: Sendable, Hashable {
            /// An HTTP proxy: absolute-URI requests for http, `CONNECT` tunnels for https.
            case http
            /// A SOCKS5 proxy (`socks5://`, `socks5h://`).
            case socks
        }
        public var kind: Kind
        public var host: String
        public var port: Int
        /// `user:password` for `Proxy-Authorization: Basic` (HTTP proxies), from the proxy's URL.
        public var user: String?
        public var password: String?

        /// The proxy as people write it, without its password.
        public var description: String {
            (kind == .socks ? "socks5://" : "http://") + (user.map { "\($0):***@" } ?? "") + host + ":\(port)"
        }
    }

    /// The proxy for http URLs, for https URLs, and the hosts that go direct.
    public var http: Server?
    public var https: Server?
    public var noProxy: [String]

    public init(http: Server? = nil, https: Server? = nil, noProxy: [String] = []) {
        self.http = http
        self.https = https
        self.noProxy = noProxy
    }

    /// The settings of `environment` (the process's by default) and the config's `proxy`.
    /// - Throws: ``DownloadError/badProxy(source:value:reason:)`` for a value podq cannot use.
    public static func from(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        configured: String? = nil
    ) throws(DownloadError) -> ProxySettings {
        func value(_ name: String, upper: Bool = true) -> (String, String)? {
            if let v = environment[name], !v.isEmpty { return (name, v) }
            if upper, let v = environment[name.uppercased()], !v.isEmpty { return (name.uppercased(), v) }
            return nil
        }
        let all = try value("all_proxy").map { (name, v) throws(DownloadError) in try parse(v, source: name) }
        var settings = ProxySettings()
        if let configured, !configured.isEmpty {
            let server = try parse(configured, source: "proxy (config)")
            settings.http = server
            settings.https = server
        } else {
            settings.http = try value("http_proxy", upper: false).map { (name, v) throws(DownloadError) in try parse(v, source: name) } ?? all
            settings.https = try value("https_proxy").map { (name, v) throws(DownloadError) in try parse(v, source: name) } ?? all
        }
        settings.noProxy = (value("no_proxy")?.1 ?? "").split(separator: ",").map { $0.trimmingSpaces.lowercased() }
            .filter { !$0.isEmpty }
        return settings
    }

    /// The proxy `url` goes through; nil to go direct.
    public func server(for url: URL) -> Server? {
        let https = url.scheme?.lowercased() == "https"
        guard let server = https ? self.https : http, let host = url.host?.lowercased() else { return nil }
        return bypasses(host) ? nil : server
    }

    /// True when `no_proxy` names `host`: `*`, the host itself, a domain it is in (`example.org` and
    /// `.example.org` both match `cdn.example.org`), or an IPv4 range (`10.0.0.0/8`). A port is ignored.
    public func bypasses(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        for entry in noProxy {
            if entry == "*" { return true }
            var name = entry
            if let colon = name.lastIndex(of: ":"), !name.contains("]"), name.filter({ $0 == ":" }).count == 1 { name = String(name[..<colon]) }
            if name.hasPrefix("[") { name = String(name.dropFirst().dropLast()) }
            if name.contains("/"), Self.inRange(bare, name) { return true }
            let domain = name.hasPrefix(".") ? String(name.dropFirst()) : name
            if bare == domain || bare.hasSuffix("." + domain) { return true }
        }
        return false
    }

    private static func inRange(_ host: String, _ cidr: String) -> Bool {
        let parts = cidr.split(separator: "/")
        guard parts.count == 2, let bits = Int(parts[1]), (0...32).contains(bits),
            let network = ipv4(String(parts[0])), let address = ipv4(host)
        else { return false }
        let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << (32 - bits)
        return network & mask == address & mask
    }

    private static func ipv4(_ text: String) -> UInt32? {
        let octets = text.split(separator: ".", omittingEmptySubsequences: false).compactMap { UInt8($0) }
        guard octets.count == 4, text.split(separator: ".", omittingEmptySubsequences: false).count == 4 else { return nil }
        return octets.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    /// A proxy as curl reads it: `host:port`, `http://host:port`, `http://user:pass@host:port`,
    /// `socks5://host:port`; the port defaults to 1080 (curl's).
    package static func parse(_ text: String, source: String) throws(DownloadError) -> Server {
        let trimmed = text.trimmingSpaces
        let withScheme = trimmed.contains("://") ? trimmed : "http://" + trimmed
        guard let url = URLComponents(string: withScheme), let host = url.host, !host.isEmpty else {
            throw .badProxy(source: source, value: trimmed, reason: "it is not a proxy address such as http://proxy.example:3128")
        }
        let kind: Server.Kind
        switch url.scheme?.lowercased() ?? "http" {
        case "http": kind = .http
        case "socks5", "socks5h", "socks": kind = .socks
        case "https":
            throw .badProxy(
                source: source, value: trimmed,
                reason: "podq cannot speak TLS to a proxy; give it as http:// (https sites still go through it encrypted, by CONNECT)")
        case let other:
            throw .badProxy(source: source, value: trimmed, reason: "podq speaks to HTTP and SOCKS5 proxies, not \(other)")
        }
        return Server(
            kind: kind, host: host, port: url.port ?? 1080, user: url.user.flatMap(PercentEncoding.decode) ?? url.user,
            password: url.password.flatMap(PercentEncoding.decode) ?? url.password)
    }
}
