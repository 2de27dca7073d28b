import FoundationEssentials
import Glibc
import PodqBase
import Synchronization

/// The extra connections segmented downloads may open to each host, shared by every download of a
/// queue: one download alone may use `perDownload` connections; downloads from the same host share
/// `max(perDownload, perHost)` between them, and a host that asks for politeness gets one connection
/// per download (configured in `polite-hosts`, or learned when it answers 429 or 503 or ignores ranges).
public final class HostConnections: Sendable {
    private struct State {
        var open: [String: Int] = [:]
        var learned: Set<String> = []
        var perHost: Int
    }

    /// Connections one download may use (1: segmented downloads are off).
    public let perDownload: Int
    /// Connections to one host over all its downloads.
    public var perHost: Int { state.withLock { $0.perHost } }
    /// Host names (and their subdomains) that get one connection per download.
    public let politeHosts: [String]
    private let state: Mutex<State>

    public init(perDownload: Int, perHost: Int, politeHosts: [String] = []) {
        self.perDownload = max(1, perDownload)
        self.state = Mutex(State(perHost: max(max(1, perDownload), perHost)))
        self.politeHosts = politeHosts.map { $0.lowercased().trimming { $0 == "." } }
    }

    /// True when `host` gets one connection per download.
    public func isPolite(_ host: String) -> Bool {
        let host = host.lowercased()
        if state.withLock({ $0.learned.contains(host) }) { return true }
        return politeHosts.contains { host == $0 || host.hasSuffix("." + $0) }
    }

    /// Remembers that `host` asked podq to slow down (a 429 or 503), or ignores ranges: no more extra
    /// connections to it.
    public func learnOneConnection(_ host: String) {
        _ = state.withLock { $0.learned.insert(host.lowercased()) }
    }

    /// The queue's `per-host-downloads` changed (`]`/`[` in the TUI): the connections to one host
    /// follow it at once, never below one download's own.
    public func setPerHostDownloads(_ value: Int) {
        state.withLock { $0.perHost = max(perDownload, value) }
    }

    /// A download's own connection to `host` opens (it always may).
    public func open(_ host: String) {
        state.withLock { $0.open[host.lowercased(), default: 0] += 1 }
    }

    /// Another connection to `host` for a download already using `using`; false when the caps or
    /// the host's politeness do not allow it.
    public func openExtra(_ host: String, using: Int) -> Bool {
        guard using < perDownload, !isPolite(host) else { return false }
        return state.withLock { state in
            let key = host.lowercased()
            guard state.open[key, default: 0] < state.perHost else { return false }
            state.open[key, default: 0] += 1
            return true
        }
    }

    /// A connection to `host` closes.
    public func close(_ host: String) {
        state.withLock { state in
            let key = host.lowercased()
            state.open[key] = max(0, state.open[key, default: 0] - 1)
            if state.open[key] == 0 { state.open[key] = nil }
        }
    }
}
