import PodqHTTP

/// How podq reaches one podcast's server beyond the defaults: its login and its own `User-Agent`
/// (`podq add --user`, `--user-agent`), and what its downloads compute beyond the defaults. Carried by
/// feed fetches and by the downloads of its episodes.
public struct PodcastAccess: HTTPAccess, Equatable {
    public var credentials: Credentials?
    /// Sent as the `User-Agent` instead of the config's or podq's own.
    public var userAgent: String?
    /// Digests each of its files gets as it streams beyond the defaults: SHA-256 when the podcast has
    /// its own `on-complete` hook (its `PODQ_SHA256`).
    public var digests: Set<DigestAlgorithm> = []

    public init(credentials: Credentials? = nil, userAgent: String? = nil) {
        self.credentials = credentials
        self.userAgent = userAgent
    }

    /// True when there is nothing to change.
    public var isEmpty: Bool { credentials == nil && userAgent == nil && digests.isEmpty }
}
