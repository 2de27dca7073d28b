import Foundation
import PodqCore

/// The one place podq makes and shuts down its HTTP client: every command that talks to the network
/// runs inside ``with(stallTimeout:rateLimiter:_:)``, which shuts the client down on every path.
enum HTTPSession {
    /// Runs `body` with a new client and shuts it down afterwards, whether `body` returned or threw.
    /// - Parameters:
    ///   - stallTimeout: seconds without a byte before an attempt is abandoned (the config's `stall-timeout`).
    ///   - responseTimeout: seconds a server may take to send a complete head (`response-timeout`).
    ///   - rateLimiter: the speed limit the downloads share; nil for none (no lock per chunk).
    ///   - isolation: where `body` runs: the caller's actor (the TUI's main actor), or none.
    static func with<T>(stallTimeout: Double? = nil, responseTimeout: Double? = nil, rateLimiter: RateLimiter? = nil,
                        isolation: isolated (any Actor)? = #isolation,
                        _ body: (AsyncHTTPTransport) async throws -> T) async throws -> T {
        let transport = AsyncHTTPTransport(stallTimeout: .milliseconds(Int((stallTimeout ?? 30) * 1000)),
                                           responseTimeout: .milliseconds(Int((responseTimeout ?? 30) * 1000)), rateLimiter: rateLimiter)
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
