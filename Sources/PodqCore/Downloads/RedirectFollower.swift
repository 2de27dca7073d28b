import Foundation
import NIOHTTP1

/// Sends a GET and follows redirects itself: at most `maxRedirects`, no loops, http and https only,
/// remembering the chain and whether every hop was permanent (301/308), so a feed's stored URL can
/// follow a permanent move.
public struct RedirectFollower: Sendable {
    /// What the chain ended with.
    public struct Result: Sendable {
        public var response: TransportResponse
        public var finalURL: URL
        /// Every URL visited, the first one included.
        public var chain: [String]
        /// True when there was at least one redirect and all were 301 or 308.
        public var movedPermanently: Bool
    }

    let transport: any HTTPTransport
    let maxRedirects: Int

    public init(transport: any HTTPTransport, maxRedirects: Int = 10) {
        self.transport = transport
        self.maxRedirects = maxRedirects
    }

    /// Sends `headers` to `url` and to every redirect target.
    /// - Parameter trace: receives each URL as it is visited, so a failure part-way can say where.
    /// - Throws: ``DownloadError`` for a bad scheme, a loop, too many hops or a redirect without Location.
    public func send(url start: URL, headers: HTTPHeaders = [:], trace: URLChain? = nil) async throws -> Result {
        var url = start
        var chain = [url.absoluteString]
        trace?.append(url.absoluteString)
        var visited: Set<String> = [url.absoluteString]
        var permanent = true
        while true {
            guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                throw chain.count == 1 ? DownloadError.unsupportedScheme(url.absoluteString)
                    : DownloadError.redirectToUnsupportedScheme(url.absoluteString)
            }
            let response = try await transport.send(TransportRequest(url: url, headers: headers))
            guard [301, 302, 303, 307, 308].contains(response.status) else {
                return Result(response: response, finalURL: url, chain: chain, movedPermanently: chain.count > 1 && permanent)
            }
            try await Self.drain(response.body)
            guard let location = response.headers.first(name: "Location"),
                let next = URL(string: location.trimmingCharacters(in: .whitespaces), relativeTo: url)?.absoluteURL
            else {
                throw DownloadError.badRedirect(url: url.absoluteString)
            }
            trace?.append(next.absoluteString)
            guard let nextScheme = next.scheme?.lowercased(), nextScheme == "http" || nextScheme == "https" else {
                throw DownloadError.redirectToUnsupportedScheme(next.absoluteString)
            }
            if visited.contains(next.absoluteString) { throw DownloadError.redirectLoop(url: next.absoluteString) }
            if chain.count > maxRedirects { throw DownloadError.tooManyRedirects(limit: maxRedirects, url: start.absoluteString) }
            permanent = permanent && (response.status == 301 || response.status == 308)
            visited.insert(next.absoluteString)
            chain.append(next.absoluteString)
            url = next
        }
    }

    /// Reads a redirect's body (a few bytes at most) so the connection can be reused; gives up past 64 KiB.
    static func drain(_ body: ResponseBody) async throws {
        var seen = 0
        for try await chunk in body {
            seen += chunk.readableBytes
            if seen > 64 * 1024 { return }
        }
    }
}
