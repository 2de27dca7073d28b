import FoundationEssentials
import Glibc
import Synchronization

/// The URLs a request went through, the first one included, filled in as each redirect is followed,
/// so that a failure part-way (a loop, a bad hop, a refused connection at the third host) can say
/// where it happened. Shared between the redirect follower and whoever logs the failure.
public final class URLChain: Sendable {
    private struct Hop {
        var url: String
        /// Why this hop failed when the chain went on without it (a dead tracking prefix).
        var failure: String?
        /// Reached by a 301 or 308 (a move for good), not a temporary redirect or a skipped hop.
        var permanent = false
    }

    private let visited = Mutex<[Hop]>([])

    public init() {}

    /// Every URL visited so far.
    public var urls: [String] { visited.withLock { $0.map(\.url) } }

    /// The chain as one line: `a -> b [failed: reason] -> c`.
    public var description: String {
        visited.withLock { hops in
            hops.map { $0.url + ($0.failure.map { " [failed: \($0)]" } ?? "") }.joined(separator: " -> ")
        }
    }

    /// The hosts of the chain as one short line for a row's failure: `a.com -> b.fm (failed) -> c.net`.
    public var hosts: String {
        visited.withLock { hops in
            hops.map { (URL(string: $0.url)?.host ?? $0.url) + ($0.failure == nil ? "" : " (failed)") }.joined(separator: " -> ")
        }
    }

    /// True when a hop failed and the chain went on from the URL inside it.
    public var skippedHop: Bool { visited.withLock { $0.contains { $0.failure != nil } } }

    /// True when the chain went somewhere else by permanent redirects (301, 308) only: the resource
    /// moved for good, even if its new place then failed.
    public var movedPermanently: Bool {
        visited.withLock { hops in hops.count > 1 && hops.dropFirst().allSatisfy(\.permanent) }
    }

    func append(_ url: String, permanent: Bool = false) { visited.withLock { $0.append(Hop(url: url, permanent: permanent)) } }

    /// Marks the last hop as failed, for `reason`, before the chain goes on without it.
    func failLast(_ reason: String) {
        visited.withLock { hops in
            guard !hops.isEmpty else { return }
            hops[hops.count - 1].failure = reason
        }
    }
}
