/// Everything a TUI frame shows that comes from the queue and the subscriptions: a value, taken at
/// frame time, that the renderer turns into a ``Grid``.
public struct TUISnapshot: Sendable, Equatable {
    /// Every download, in queue order.
    public var downloads: [DownloadRow]
    /// Newest first.
    public var episodes: [EpisodeRow]
    public var podcasts: [PodcastRow]
    /// How many downloads may run at once.
    public var limit: Int
    /// The speed limit the downloads share, in bytes a second; nil for none.
    public var rateLimit: Int?
    /// Something the whole queue is waiting on (a full disk), shown on the message line.
    public var notice: String?
    /// Queued downloads held back by the per-host cap, and the cap.
    public var waitingForHost: Int
    public var perHost: Int

    public init(downloads: [DownloadRow] = [], episodes: [EpisodeRow] = [], podcasts: [PodcastRow] = [], limit: Int = 3,
                rateLimit: Int? = nil, notice: String? = nil, waitingForHost: Int = 0, perHost: Int = 2) {
        self.waitingForHost = waitingForHost
        self.perHost = perHost
        self.rateLimit = rateLimit
        self.downloads = downloads
        self.episodes = episodes
        self.podcasts = podcasts
        self.limit = limit
        self.notice = notice
    }

    /// The figures of the status line.
    public struct Totals: Sendable, Equatable {
        public var active = 0
        public var queued = 0
        public var paused = 0
        public var failed = 0
        public var completed = 0
        /// Bytes a second, all downloads together.
        public var speed: Double = 0
    }

    /// Counts by state and the total speed.
    public var totals: Totals {
        var t = Totals()
        for row in downloads {
            switch row.state {
            case .downloading: t.active += 1; t.speed += row.speed
            case .queued: t.queued += 1
            case .paused: t.paused += 1
            case .failed: t.failed += 1
            case .completed: t.completed += 1
            case .cancelled: break
            }
        }
        return t
    }
}
