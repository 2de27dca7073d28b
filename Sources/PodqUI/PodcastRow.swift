/// What one row of the Podcasts view shows.
public struct PodcastRow: Sendable, Equatable {
    public var id: Int64
    /// Already free of control characters.
    public var title: String
    public var url: String
    public var episodes: Int
    /// Unix seconds of the last successful refresh.
    public var lastRefresh: Double?
    /// Why the last refresh failed.
    public var error: String?
    /// What the last read had to mend, when it was sloppy (``PodqCore/FeedRepairs/summary``).
    public var repairs: String?
    /// New episodes are queued on refresh.
    public var autoQueue: Bool
    /// Episodes neither queued nor played, and downloaded ones (set by the renderer from the queue).
    public var newEpisodes: Int?
    public var downloaded: Int?

    public init(
        id: Int64, title: String, url: String, episodes: Int, lastRefresh: Double?, error: String?, autoQueue: Bool,
        repairs: String? = nil
    ) {
        self.repairs = repairs
        self.id = id
        self.title = title
        self.url = url
        self.episodes = episodes
        self.lastRefresh = lastRefresh
        self.error = error
        self.autoQueue = autoQueue
    }
}
