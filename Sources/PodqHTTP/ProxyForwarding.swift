import FoundationEssentials
import Glibc
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL
import PodqBase

/// Plain http through an HTTP proxy the way curl and browsers send it: the request goes to the proxy
/// with the whole URL as its target (`GET http://host/path HTTP/1.1`), which every HTTP proxy takes.
/// AsyncHTTPClient only tunnels (`CONNECT host:80`), which squid and tinyproxy refuse by default for
/// any port but 443, so podq sends these requests itself: one connection per request
/// (`Connection: close`), the response fed to the same ``StreamingDelegate`` as AHC's (its backpressure,
/// stall clock, speed limit and errors) by a ``ResponseRelay``, as media sent direct is
/// (``get(_:headers:into:on:)``).
extension DirectClient {
    /// Sends `url` through `proxy` with `headers` and returns the response's head.
    /// - Parameter decompress: decode a gzip or deflate body (a feed's), under AHC's own ratio limit.
    func forward(
        _ url: URL, headers: HTTPHeaders, via proxy: ProxySettings.Server, decompress: Bool, into delegate: StreamingDelegate,
        on eventLoop: any EventLoop
    ) async throws -> HTTPResponseHead {
        var headers = headers
        if !headers.contains(name: "Host"), let host = url.host {
            headers.add(name: "Host", value: url.port.map { "\(host):\($0)" } ?? host)
        }
        headers.replaceOrAdd(name: "Connection", value: "close")
        if let user = proxy.user {
            headers.replaceOrAdd(name: "Proxy-Authorization", value: "Basic " + Data("\(user):\(proxy.password ?? "")".utf8).base64EncodedString())
        }
        var target = url.absoluteString
        if let hash = target.firstIndex(of: "#") { target = String(target[..<hash]) }
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers)
        return try await open(
            host: proxy.host, port: proxy.port, tls: nil, request: head, peer: "the proxy", decompress: decompress,
            into: delegate, on: eventLoop
        ) { error in
            DownloadError.connectionFailed("the proxy \(proxy.description): \(Self.reason(error))")
        }
    }
}
