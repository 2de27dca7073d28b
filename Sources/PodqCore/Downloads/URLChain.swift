import Foundation
import Synchronization

/// The URLs a request went through, the first one included, filled in as each redirect is followed,
/// so that a failure part-way (a loop, a bad hop, a refused connection at the third host) can say
/// where it happened. Shared between the redirect follower and whoever logs the failure.
public final class URLChain: Sendable {
    private let visited = Mutex<[String]>([])

    public init() {}

    /// Every URL visited so far.
    public var urls: [String] { visited.withLock { $0 } }

    /// The chain as one line: `a -> b -> c`.
    public var description: String { urls.joined(separator: " -> ") }

    func append(_ url: String) { visited.withLock { $0.append(url) } }
}
