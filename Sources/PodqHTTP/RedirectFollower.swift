import FoundationEssentials
import Glibc
import Logging
import NIOHTTP1
import PodqBase

/// Sends a GET and follows redirects itself: at most `maxRedirects`, no loops, http and https only,
/// remembering the chain and whether every hop was permanent (301/308), so a feed's stored URL can
/// follow a permanent move.
///
/// When a hop fails for a reason that is not the file's (no connection, TLS, no answer, a 5xx) and
/// its URL carries another one (a tracking prefix, ``TrackingPrefix``), the chain goes on from the
/// URL inside: a dead analytics service does not take the episode with it.
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
    let logger: Logger
    let pacing: RateLimiter?

    /// - Parameter pacing: the speed limit every hop's body is read under (a download's policy); nil
    ///   for none (feeds, pages, sidecars).
    public init(transport: any HTTPTransport, maxRedirects: Int = 10, logger: Logger = .disabled, pacing: RateLimiter? = nil) {
        self.transport = transport
        self.maxRedirects = maxRedirects
        self.logger = logger
        self.pacing = pacing
    }

    /// Sends `headers` to `url` and to every redirect target.
    /// - Parameter trace: receives each URL as it is visited, so a failure part-way can say where.
    /// - Throws: ``DownloadError`` for a bad scheme, a loop, too many hops or a redirect without Location.
    /// - Parameter decompress: decode a gzip or deflate body (a feed's; see ``TransportRequest/decompress``).
    /// - Parameter access: a login, sent only to the hops it belongs to (``Credentials/applies(to:)``),
    ///   and a `User-Agent`. A login in the URL itself (`https://user:pass@host/…`) is taken out of it
    ///   and treated the same way.
    public func send(
        url given: URL, headers: HTTPHeaders = [:], decompress: Bool = false, access: (any HTTPAccess)? = nil,
        trace: URLChain? = nil
    ) async throws -> Result {
        let (start, inURL) = Credentials.split(given)
        let credentials = inURL ?? access?.credentials
        var headers = headers
        if let agent = access?.userAgent { headers.replaceOrAdd(name: "User-Agent", value: agent) }
        var url = start
        var chain = [url.absoluteString]
        trace?.append(url.absoluteString)
        var visited: Set<String> = [url.absoluteString]
        var permanent = true
        // The failure of the first hop the chain went on without: if going on does not bring the
        // file either, that failure is the one reported (the URL inside a hop may be a guess: a
        // CDN's path that merely looks like a host must not turn a passing 503 into a lasting 404).
        var skipped: DownloadError?
        // One clock for the whole chain: a feed's `fetch-timeout` is not renewed by each redirect.
        let started = ContinuousClock.now
        do {
            while true {
                guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                    throw chain.count == 1
                        ? DownloadError.unsupportedScheme(url.absoluteString)
                        : DownloadError.redirectToUnsupportedScheme(url.absoluteString)
                }
                let next: URL
                do {
                    var hop = headers
                    // The login goes to its own host only: never to another one a redirect or a prefix leads to.
                    if let credentials, credentials.applies(to: url) {
                        hop.replaceOrAdd(name: "Authorization", value: credentials.authorization)
                    } else {
                        hop.remove(name: "Authorization")
                    }
                    var request = TransportRequest(url: url, headers: hop, decompress: decompress, pacing: pacing)
                    request.fetchStarted = started
                    let response = try await transport.send(request)
                    if response.status >= 500, let inner = innerHop(of: url, visited: visited, reason: "HTTP \(response.status)", trace: trace) {
                        try await Self.drain(response.body)
                        skipped =
                            skipped
                            ?? .httpStatus(
                                code: response.status, url: url.absoluteString,
                                retryAfter: response.headers.first(name: "Retry-After").flatMap(RetryAfter.seconds))
                        permanent = false
                        next = inner
                    } else if [301, 302, 303, 307, 308].contains(response.status) {
                        try await Self.drain(response.body)
                        guard let location = response.headers.first(name: "Location"),
                            let target = URL(string: location.trimmingSpaces, relativeTo: url)?.absoluteURL
                        else {
                            throw DownloadError.badRedirect(url: url.absoluteString)
                        }
                        logger.debug("redirect", metadata: ["status": "\(response.status)", "from": "\(url.absoluteString)", "to": "\(target.absoluteString)"])
                        trace?.append(target.absoluteString, permanent: response.status == 301 || response.status == 308)
                        guard let nextScheme = target.scheme?.lowercased(), nextScheme == "http" || nextScheme == "https" else {
                            throw DownloadError.redirectToUnsupportedScheme(target.absoluteString)
                        }
                        permanent = permanent && (response.status == 301 || response.status == 308)
                        next = target
                    } else {
                        if let skipped, response.status >= 400, response.status != 416 {
                            try await Self.drain(response.body)
                            throw skipped
                        }
                        return Result(response: response, finalURL: url, chain: chain, movedPermanently: chain.count > 1 && permanent)
                    }
                } catch let error as DownloadError where Self.isHopFailure(error) {
                    guard let inner = innerHop(of: url, visited: visited, reason: Self.shortReason(error), trace: trace) else { throw error }
                    skipped = skipped ?? error
                    permanent = false
                    next = inner
                }
                if visited.contains(next.absoluteString) { throw DownloadError.redirectLoop(url: next.absoluteString) }
                if chain.count > maxRedirects { throw DownloadError.tooManyRedirects(limit: maxRedirects, url: start.absoluteString) }
                visited.insert(next.absoluteString)
                chain.append(next.absoluteString)
                url = next
            }
        } catch let error as DownloadError {
            throw skipped ?? error
        }
    }

    /// The URL inside `url` to go on from, after its hop failed for `reason`: marked in the chain and
    /// logged. Nil when `url` carries none (the failure is then the chain's).
    private func innerHop(of url: URL, visited: Set<String>, reason: String, trace: URLChain?) -> URL? {
        guard let inner = TrackingPrefix.innerURL(of: url), !visited.contains(inner.absoluteString) else { return nil }
        logger.warning(
            "a hop of the chain failed; going on from the URL inside it",
            metadata: ["hop": "\(url.absoluteString)", "reason": "\(reason)", "next": "\(inner.absoluteString)"])
        trace?.failLast(reason)
        trace?.append(inner.absoluteString)
        return inner
    }

    /// Failures of the hop's server, not of the file: a prefix that fails so can be skipped.
    static func isHopFailure(_ error: DownloadError) -> Bool {
        switch error {
        case .connectionFailed, .connectionRefused, .connectionLost, .noResponse, .headTooLarge, .untrustedCertificate, .tlsRefused, .network, .stalled: true
        default: false
        }
    }

    private static func shortReason(_ error: DownloadError) -> String {
        switch error {
        case .connectionFailed(let reason): "could not connect: \(reason)"
        case .connectionRefused: "connection refused"
        case .connectionLost(let reason): "connection lost: \(reason)"
        case .noResponse: "no answer"
        case .stalled: "stalled"
        case .untrustedCertificate(_, let reason): "certificate not trusted: \(reason)"
        case .tlsRefused(let reason): "TLS failed: \(reason)"
        default: ErrorText.describe(error)
        }
    }

    /// Reads a redirect's body (a few bytes at most) so the connection can be reused; gives up past 64 KiB.
    package static func drain(_ body: ResponseBody) async throws {
        var seen = 0
        for try await chunk in body {
            seen += chunk.readableBytes
            if seen > 64 * 1024 { return }
        }
    }
}
