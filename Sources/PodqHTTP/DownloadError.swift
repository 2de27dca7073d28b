import FoundationEssentials
import Glibc
import NIOHTTP1
import PodqBase

/// Everything that can stop a download, with a message that says what happened and what to do.
///
/// ``isRetryable`` separates temporary errors (the network, the server having a bad moment) from
/// permanent ones (the URL is wrong, the server refuses).
public enum DownloadError: Error, LocalizedError, Sendable, Equatable {
    /// The URL could not be parsed.
    case invalidURL(String)
    /// The URL is not http or https.
    case unsupportedScheme(String)
    /// The server answered with an error status. `retryAfter` is its `Retry-After`, in seconds.
    case httpStatus(code: Int, url: String, retryAfter: Double?)
    /// More redirects than the limit.
    case tooManyRedirects(limit: Int, url: String)
    /// A redirect led back to a URL already visited.
    case redirectLoop(url: String)
    /// A redirect without a usable `Location`.
    case badRedirect(url: String)
    /// A redirect to something other than http or https (`ftp:`, `file:`, …).
    case redirectToUnsupportedScheme(String)
    /// The connection could not be made (refused, DNS, TLS, time-out).
    case connectionFailed(String)
    /// Nothing listens at `address` (host:port): the connection was refused. Tried once more, not
    /// for the whole `max-attempts` (curl and wget do not retry it at all).
    case connectionRefused(address: String)
    /// The connection broke while the body was being received.
    case connectionLost(String)
    /// No byte arrived for the stall time-out.
    case stalled(seconds: Double)
    /// The server took the request but its answer's head did not come: nothing arrived for `seconds`
    /// before the status line and headers were complete.
    case noResponse(seconds: Double)
    /// The answer's head (status line and headers) was longer than `limit` bytes: refused as soon as
    /// it passed the limit, never retried.
    case headTooLarge(limit: Int)
    /// A feed, a web page or a sidecar did not come whole within `seconds` (`fetch-timeout`): a server
    /// that trickles it.
    case tooSlow(seconds: Double)
    /// The server's certificate did not verify: permanent, never retried.
    case untrustedCertificate(host: String, reason: String)
    /// The TLS handshake failed in a way trying again does not change (the port speaks plain http,
    /// no TLS version or cipher in common): permanent, never retried.
    case tlsRefused(String)
    /// `SSL_CERT_FILE` or `SSL_CERT_DIR` names something podq cannot use.
    case badTrustStore(variable: String, path: String, reason: String)
    /// The body ended before the announced length.
    case shortBody(received: Int64, expected: Int64)
    /// The body went on past the announced length.
    case bodyTooLong(expected: Int64)
    /// The server's answer to a range request did not fit the request.
    case badRange(String)
    /// The disk is full; nothing is lost and the download can resume once there is room.
    case diskFull(path: String)
    /// Writing, syncing or renaming the file failed.
    case fileSystem(path: String, reason: String)
    /// The destination would be outside the download folder.
    case outsideDownloadFolder(path: String)
    /// A symbolic link stands where podq expects a file or folder of its own in the download folder.
    case symlinkRefused(path: String)
    /// Something that is not podq's stands where podq expects its own file or folder (a file where a
    /// folder goes, a partial with other names, a pipe): podq will not write into or through it.
    case notPodqs(path: String, reason: String)
    /// The partial file changed under podq (another program wrote into it or replaced it): it is not
    /// trusted, and the download starts again from zero.
    case partialChanged(path: String, reason: String)
    /// A proxy setting (`http_proxy`…, or the config's `proxy`) podq cannot use.
    case badProxy(source: String, value: String, reason: String)
    /// A 403 from a server behind a web firewall (Cloudflare…), after the browser-compatible retry.
    case refusedBehindFirewall(firewall: String, url: String)
    /// The server sent a web page (a login page, a paywall, an error page) where the media file should be.
    case webPage(url: String)
    /// The server sent the media file encoded (`Content-Encoding: gzip`) although podq asked for it as it is.
    case encodedBody(encoding: String, url: String)
    /// The proxy answered 407: it wants a login (`hadLogin`: the one given was refused).
    case proxyLogin(proxy: String, hadLogin: Bool)
    /// A feed or a sidecar sent in a coding podq did not ask for and cannot decode (`br`, `zstd`):
    /// named, never read as garbled text.
    case undecodableEncoding(encoding: String, url: String)
    /// Any other failure of the HTTP layer.
    case network(String)

    /// True for errors that may go away by themselves (network trouble, 5xx, 408, 429, a full disk).
    public var isRetryable: Bool {
        switch self {
        case .httpStatus(let code, _, _): code >= 500 || code == 408 || code == 429
        case .connectionFailed, .connectionRefused, .connectionLost, .stalled, .noResponse, .tooSlow, .shortBody, .network, .diskFull, .badRange,
            .partialChanged:
            true
        case .invalidURL, .unsupportedScheme, .tooManyRedirects, .redirectLoop, .badRedirect,
            .redirectToUnsupportedScheme, .bodyTooLong, .fileSystem, .outsideDownloadFolder, .symlinkRefused, .notPodqs,
            .untrustedCertificate, .tlsRefused, .badTrustStore, .webPage, .headTooLarge, .undecodableEncoding, .proxyLogin, .encodedBody, .badProxy,
            .refusedBehindFirewall:
            false
        }
    }

    /// The most attempts this error is worth, below `max-attempts`; nil for no cap of its own. A refused
    /// connection is one: nothing listens there, and trying again in seconds finds the same (curl and
    /// wget do not retry it either); the next run tries again.
    public var attemptCap: Int? {
        if case .connectionRefused = self { return 1 }
        return nil
    }

    /// Seconds the server asked us to wait (`Retry-After`), if it did.
    public var retryAfter: Double? {
        if case .httpStatus(_, _, let seconds) = self { return seconds }
        return nil
    }

    /// Throws ``undecodableEncoding(encoding:url:)`` when a decoded body (a feed's, a sidecar's) says a
    /// coding other than the gzip and deflate podq asks for and decodes.
    package static func checkDecodable(_ headers: HTTPHeaders, url: String) throws(DownloadError) {
        guard let value = headers.first(name: "Content-Encoding") else { return }
        let codings = value.split(separator: ",").map { String($0).trimmingASCIIWhitespace.lowercased() }.filter { !$0.isEmpty }
        if let other = codings.first(where: { !["gzip", "x-gzip", "deflate", "identity"].contains($0) }) {
            throw .undecodableEncoding(encoding: other, url: url)
        }
    }

    /// The error for a response that is not the file: its status, with `Retry-After`; a 403 behind a web
    /// firewall says so (``refusedBehindFirewall(firewall:url:)``).
    package static func status(of response: TransportResponse, url: String) -> DownloadError {
        if response.status == 403, let firewall = AsyncHTTPTransport.firewall(response.headers) {
            return .refusedBehindFirewall(firewall: firewall, url: url)
        }
        let retryAfter = response.headers.first(name: "Retry-After").flatMap(RetryAfter.seconds)
        return .httpStatus(code: response.status, url: url, retryAfter: retryAfter)
    }

    /// " Did you mean https://…?" for a scheme one typo away from http(s) (`htp://`, `htps://`).
    public static func schemeHint(_ url: String) -> String {
        guard let range = url.firstRange(of: "://") else { return "" }
        let scheme = String(url[..<range.lowerBound])
        guard let near = Suggestion.nearest(to: scheme, in: ["http", "https"]), near != scheme.lowercased() else { return "" }
        return " Did you mean \(near)://\(SafeText.clean(String(url[range.upperBound...])))?"
    }

    public var errorDescription: String? {
        switch self {
        case .invalidURL(let text):
            "'\(SafeText.clean(text))' is not a valid URL; give a full http:// or https:// address."
        case .unsupportedScheme(let url):
            "\(SafeText.clean(url)) is not an http or https URL; podq downloads only over HTTP(S)." + Self.schemeHint(url)
        case .httpStatus(let code, let url, let retryAfter):
            Self.describe(status: code, url: url, retryAfter: retryAfter)
        case .tooManyRedirects(let limit, let url):
            "More than \(limit) redirects starting at \(SafeText.clean(url)); the link is probably broken."
        case .redirectLoop(let url):
            "The server redirects in a circle at \(SafeText.clean(url)); the link is broken on the server."
        case .badRedirect(let url):
            "\(SafeText.clean(url)) redirects without a usable Location; the server is misconfigured."
        case .redirectToUnsupportedScheme(let target):
            "A redirect points to \(SafeText.clean(target)), which is not HTTP(S); podq will not follow it."
        case .connectionFailed(let reason):
            "Could not connect: \(reason). Check the network and the address."
        case .connectionRefused(let address):
            "Could not connect: \(SafeText.clean(address)) refused the connection (nothing listens there: a wrong port, or the server is down). Check the address."
        case .connectionLost(let reason):
            "The connection broke during the download (\(reason)); the partial file is kept for a resume."
        case .stalled(let seconds):
            "No data arrived for \(Self.format(seconds)) s; the partial file is kept for a resume."
        case .untrustedCertificate(let host, let reason):
            "The server's certificate is not trusted (\(SafeText.clean(reason))), so podq did not talk to \(SafeText.clean(host)). If you trust it, point SSL_CERT_FILE at its CA certificate (PEM), as for curl, or install the CA: copy it to /usr/local/share/ca-certificates/ and run update-ca-certificates."
        case .tlsRefused(let reason):
            "Could not connect: the secure (TLS) connection failed: \(reason)."
        case .badTrustStore(let variable, let path, let reason):
            "\(variable)=\(SafeText.clean(path)) cannot be used: \(reason). Point it at a PEM file of CA certificates (SSL_CERT_FILE) or a folder of them (SSL_CERT_DIR), or unset it."
        case .noResponse(let seconds):
            "The server took the request but sent no complete answer (its headers) for \(Self.format(seconds)) s; it may be overloaded. For a server that is slow to answer, raise response-timeout in the config."
        case .tooSlow(let seconds):
            "The server did not send it whole within \(Self.format(seconds)) s (fetch-timeout): its bytes come too slowly. Try again later, or raise fetch-timeout in the config."
        case .headTooLarge(let limit):
            "The server's answer has headers longer than \(limit / 1024) KiB, the most podq reads; it is refused. The server is misconfigured (or hostile): tell the podcast's host."
        case .shortBody(let received, let expected):
            "The server sent \(received) of \(expected) bytes and stopped; the partial file is kept."
        case .bodyTooLong(let expected):
            "The server sent more than the \(expected) bytes it announced; the file is not trusted."
        case .badRange(let detail):
            "The server answered a resume request wrongly (\(detail)); podq starts the file again."
        case .diskFull(let path):
            "The disk is full while writing \(path). Free some space, then resume: nothing was lost."
        case .fileSystem(let path, let reason):
            "Could not write \(path): \(reason). Check the folder's permissions and free space."
        case .outsideDownloadFolder(let path):
            "Refused to write \(SafeText.clean(path)): it is outside the download folder."
        case .symlinkRefused(let path):
            "Refused to write through \(SafeText.clean(path)): it is a symbolic link where podq expects a file or folder of its own. "
                + "Remove the link, or set download-folder to the real place."
        case .notPodqs(let path, let reason):
            "Refused to write \(SafeText.clean(path)): \(reason), where podq expects a file or folder of its own. Move it away, then retry."
        case .partialChanged(let path, let reason):
            "The partial file \(SafeText.clean(path)) changed under podq (\(reason)); another program may be writing to it. "
                + "podq starts the file again."
        case .badProxy(let source, let value, let reason):
            "\(source)=\(SafeText.clean(SafeText.redactingCredentials(value.contains("://") ? value : "http://" + value))) cannot be used: \(reason). Fix or unset it."
        case .refusedBehindFirewall(let firewall, let url):
            "The server refused \(SafeText.clean(url)) (HTTP 403, behind \(firewall)), also to podq as a browser-compatible client. "
                + "A web firewall may block podq: try another User-Agent (`user-agent` in the config, or `podq add --user-agent`), or ask the podcast's host to let podq through. "
                + "It may also be a link that needs a login or has expired."
        case .webPage(let url):
            "The server sent a web page, not audio, for \(SafeText.clean(url)) (a login page, a paywall or an error page); no file was kept. "
                + "Open the link in a browser to see it; a private feed may need its login (\(PodqDocs.cite("FEEDS.md")), 'Private and paid feeds')."
        case .encodedBody(let encoding, let url):
            "The server sent \(SafeText.clean(url)) encoded (Content-Encoding: \(SafeText.clean(encoding))) although podq asked for the file as it is; "
                + "podq does not store it encoded. The server is misconfigured: tell the podcast's host."
        case .proxyLogin(let proxy, let hadLogin):
            hadLogin
                ? "The proxy \(SafeText.clean(proxy)) refused its login (HTTP 407): check the user name and password in its URL (http_proxy, https_proxy or the config's proxy)."
                : "The proxy \(SafeText.clean(proxy)) wants a login (HTTP 407): give it in the proxy's URL, http://user:password@host:port, in http_proxy, https_proxy or the config's proxy."
        case .undecodableEncoding(let encoding, let url):
            "The server sent \(SafeText.clean(url)) compressed as \(SafeText.clean(encoding)) (Content-Encoding), which podq did not ask for and cannot decode "
                + "(it asks for gzip or deflate). The server is misconfigured: tell the podcast's host."
        case .network(let reason):
            "Network error: \(reason)."
        }
    }

    private static func describe(status: Int, url: String, retryAfter: Double?) -> String {
        let where_ = SafeText.clean(url)
        switch status {
        case 404, 410: return "The server has no file at \(where_) (HTTP \(status)); the episode may have been removed."
        case 401:
            return "The server wants a login for \(where_) (HTTP 401). For a private feed: `podq add <url> --user NAME` "
                + "(or https://user:password@host/… in the URL); for one already added, `podq login <podcast> --user NAME`."
        case 403:
            return "The server refuses access to \(where_) (HTTP 403); the feed may need a login (`podq login <podcast> --user NAME`), or the link has expired."
        case 429, 503:
            let wait = retryAfter.map { " and asks to wait \(format($0)) s" } ?? ""
            return "The server is busy (HTTP \(status))\(wait)."
        case 500...599: return "The server failed (HTTP \(status)) for \(where_)."
        default: return "The server answered HTTP \(status) for \(where_)."
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(printf: "%.1f", seconds)
    }
}
