import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// Media sent direct (no proxy) goes over a connection of podq's own rather than async-http-client's
/// pool: HTTP/1.1 over NIO (and NIOSSL for https), one connection per request (`Connection: close`),
/// the response fed to the same ``StreamingDelegate`` by a ``ResponseRelay``. Per chunk it does a
/// third of the work async-http-client does, and it holds less memory per download
/// (docs/PERFORMANCE.md, docs/DECISIONS.md). Feeds and proxied https stay on async-http-client.
extension StreamingDelegate {
    /// Sends a GET for `url` with `headers` straight to its host and returns the response's head.
    /// - Parameter tls: the context for https URLs.
    func start(direct url: URL, headers: HTTPHeaders, tls: NIOSSLContext?, on eventLoop: any EventLoop, connectTimeout: TimeAmount) async throws
        -> HTTPResponseHead
    {
        guard let target = Self.target(url) else { throw DownloadError.network("the URL \(url.absoluteString) has no host") }
        var headers = headers
        if !headers.contains(name: "Host") { headers.add(name: "Host", value: target.hostHeader) }
        headers.replaceOrAdd(name: "Connection", value: "close")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target.path, headers: headers)
        let security = target.secure ? tls.map { (context: $0, serverName: target.serverName) } : nil
        if target.secure && security == nil { throw DownloadError.network("no TLS context for \(url.absoluteString)") }
        let address = target.hostHeader.contains(":") ? target.hostHeader : "\(target.hostHeader):\(target.port)"
        return try await open(
            host: target.host, port: target.port, tls: security, request: head, peer: "the server", on: eventLoop,
            connectTimeout: connectTimeout, decompress: false
        ) { error in
            Self.isRefused(error) ? DownloadError.connectionRefused(address: address) : error
        }
    }

    /// Where and what to ask for `url`.
    struct Target: Equatable {
        /// The host to connect to: a name, or an address without brackets.
        var host: String
        var port: Int
        var secure: Bool
        /// The `Host` header: the host (an IPv6 address in brackets) and the port when the URL names one.
        var hostHeader: String
        /// The request target: the path and query as the URL spells them (signed links stay intact).
        var path: String
        /// The TLS server name: the host, unless it is an address (certificates name those differently).
        var serverName: String?
    }

    static func target(_ url: URL) -> Target? {
        guard let parts = URLComponents(url: url, resolvingAgainstBaseURL: false), var host = parts.host, !host.isEmpty else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let secure = parts.scheme?.lowercased() == "https"
        let isAddress = host.contains(":") || host.split(separator: ".").allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
        let bracketed = host.contains(":") ? "[\(host)]" : host
        var path = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
        if let query = parts.percentEncodedQuery { path += "?" + query }
        return Target(
            host: host, port: parts.port ?? (secure ? 443 : 80), secure: secure,
            hostHeader: parts.port.map { "\(bracketed):\($0)" } ?? bracketed, path: path,
            serverName: isAddress ? nil : host)
    }
}
