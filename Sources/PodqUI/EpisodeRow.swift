import FoundationEssentials
import Glibc

/// What one row of the Episodes view shows.
public struct EpisodeRow: Sendable, Equatable {
    public var id: Int64
    public var podcastId: Int64
    /// Already free of control characters, like ``title``.
    public var podcast: String
    public var title: String
    /// Unix seconds.
    public var published: Double?
    /// Seconds.
    public var duration: Int?
    /// The feed's stated length in bytes.
    public var length: Int64?
    /// `new`, or the state of its download.
    public var state: EpisodeState

    /// Where the listening stopped, in seconds; nil when never played.
    public var heardTo: Int?

    public init(
        id: Int64, podcastId: Int64, podcast: String, title: String, published: Double?, duration: Int?,
        length: Int64?, state: EpisodeState, heardTo: Int? = nil
    ) {
        self.heardTo = heardTo
        self.id = id
        self.podcastId = podcastId
        self.podcast = podcast
        self.title = title
        self.published = published
        self.duration = duration
        self.length = length
        self.state = state
    }
}
