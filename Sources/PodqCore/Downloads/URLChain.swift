import Foundation

/// The URLs a request went through, the first one included, filled in as each redirect is followed,
/// so that a failure part-way (a loop, a bad hop, a refused connection at the third host) can say
/// where it happened. Shared between the redirect follower and whoever logs the failure.
public final class URLChain: @unchecked Sendable {  // _urls is behind the lock
    private let lock = NSLock()
    private var _urls: [String] = []

    public init() {}

    /// Every URL visited so far.
    public var urls: [String] { lock.withLock { _urls } }

    /// The chain as one line: `a -> b -> c`.
    public var description: String { urls.joined(separator: " -> ") }

    func append(_ url: String) { lock.withLock { _urls.append(url) } }
}
