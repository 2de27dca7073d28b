import FoundationEssentials
import Glibc
import Logging
import PodqCore
import PodqHTTP

/// The one place podq makes and shuts down its HTTP client: every command that talks to the network
/// runs inside ``with(settings:logger:isolation:_:)``, which shuts the client down on every path. The
/// speed limit is not the client's: it is the downloads' policy (``DownloadConfiguration/pacing``).
package enum HTTPSession {
    /// Runs `body` with a new client and shuts it down afterwards, whether `body` returned or threw.
    /// - Parameters:
    ///   - settings: the config: `stall-timeout` (seconds without a byte before an attempt is
    ///     abandoned), `response-timeout` (seconds a server may take to send a complete head),
    ///     `fetch-timeout` (seconds a feed or a sidecar may take, whole) and
    ///     `user-agent`, `proxy` (with the `*_proxy` variables, as curl reads them).
    ///   - logger: where the transport says what it changed (a User-Agent a web firewall refused).
    ///   - isolation: where `body` runs: the caller's actor (the TUI's main actor), or none.
    package static func with<T>(
        settings: Settings = Settings(), logger: Logger = .disabled,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (AsyncHTTPTransport) async throws -> T
    ) async throws -> T {
        let transport = AsyncHTTPTransport(
            stallTimeout: .milliseconds(Int(settings.stallTimeout * 1000)),
            responseTimeout: .milliseconds(Int(settings.responseTimeout * 1000)),
            fetchTimeout: .milliseconds(Int(settings.fetchTimeout * 1000)),
            userAgent: settings.userAgent, logger: logger,
            proxies: Result { () throws(DownloadError) in try ProxySettings.from(configured: settings.proxy) })
        let result: T
        do {
            result = try await body(transport)
        } catch {
            await transport.shutdown()
            throw error
        }
        await transport.shutdown()
        return result
    }
}
