/// Everything a TUI frame shows that comes from the queue and the subscriptions: a value, taken at
/// frame time, that the renderer turns into a ``Grid``.
public struct TUISnapshot: Sendable {
    /// Every download, in queue order.
    public var downloads: [DownloadRow]
    /// The episodes (newest first) and the subscriptions, built off the render path.
    public var library: EpisodeLibrary
    /// The state of each episode that has a download, by episode id (from the queue, not the library,
    /// so a download starting or ending changes no library).
    public var episodeStates: [Int64: EpisodeState]
    /// Remembers the rows each view shows between frames (nil: computed every time).
    public var rowLists: RowListCache?
    /// Episodes marked played or not since the library was read (`m`), by id.
    public var playedChanges: [Int64: Bool] = [:]
    /// Changes whenever ``episodeStates`` or ``playedChanges`` change (the state filter's lists are
    /// kept while it does not); 0 in tests, where nothing is kept.
    public var statesVersion = 0
    /// All downloads' speed over the last minute, a sample a second (``SpeedHistory``).
    public var speedHistory: [Double] = []
    /// How many downloads may run at once.
    public var limit: Int
    /// The speed limit the downloads share, in bytes a second; nil for none.
    public var rateLimit: Int?
    /// True until the library has been read once: the Episodes and Podcasts views say it is being
    /// read, never that there is nothing (a big library takes a moment).
    public var libraryLoading = false
    /// Queued downloads held back by the per-host cap, and the cap.
    public var waitingForHost: Int
    public var perHost: Int

    public init(
        downloads: [DownloadRow] = [], library: EpisodeLibrary, episodeStates: [Int64: EpisodeState] = [:],
        rowLists: RowListCache? = nil, limit: Int = 3, rateLimit: Int? = nil,
        waitingForHost: Int = 0, perHost: Int = 2
    ) {
        self.waitingForHost = waitingForHost
        self.perHost = perHost
        self.rateLimit = rateLimit
        self.downloads = downloads
        self.library = library
        self.episodeStates = episodeStates
        self.rowLists = rowLists
        self.limit = limit
    }

    /// A snapshot of these rows (tests and benchmarks): the episodes' states are taken from the rows.
    public init(
        downloads: [DownloadRow] = [], episodes: [EpisodeRow] = [], podcasts: [PodcastRow] = [], limit: Int = 3,
        rateLimit: Int? = nil, waitingForHost: Int = 0, perHost: Int = 2
    ) {
        var names: [Int64: String] = [:]
        for e in episodes { names[e.podcastId] = e.podcast }
        let library = EpisodeLibrary(
            podcasts: podcasts,
            entries: episodes.map {
                .init(id: $0.id, podcastId: $0.podcastId, title: $0.title, published: $0.published, duration: $0.duration, length: $0.length)
            }, podcastTitles: names)
        var states: [Int64: EpisodeState] = [:]
        for e in episodes where e.state != .new { states[e.id] = e.state }
        self.init(
            downloads: downloads, library: library, episodeStates: states, limit: limit, rateLimit: rateLimit,
            waitingForHost: waitingForHost, perHost: perHost)
    }

    /// The subscriptions, in the Podcasts view's order.
    public var podcasts: [PodcastRow] { library.podcasts }

    /// True when episode `id` is marked played.
    public func isPlayed(_ id: Int64) -> Bool {
        if let changed = playedChanges[id] { return changed }
        return library.position(of: id).map { library.isPlayed(at: $0) } ?? false
    }

    /// What the Episodes view shows in the state column of episode `id`: its download's state, else
    /// `played` or `new`; a completed download that was played says `played`.
    public func episodeState(_ id: Int64) -> EpisodeState {
        EpisodeState(download: episodeStates[id], played: isPlayed(id))
    }

    /// The Podcasts view's counts: episodes neither queued nor played (new) and downloaded ones, by
    /// podcast. Walks the queue's episodes and the played changes, not the library.
    public func podcastCounts() -> [Int64: (new: Int, downloaded: Int)] {
        var handled: [Int64: Int] = [:]  // episodes not new for a reason beyond the library's played count
        var downloaded: [Int64: Int] = [:]
        var playedDelta: [Int64: Int] = [:]
        for (id, changed) in playedChanges {
            guard let p = library.position(of: id) else { continue }
            let podcast = library.podcastId(of: id) ?? 0
            if changed != library.isPlayed(at: p) { playedDelta[podcast, default: 0] += changed ? 1 : -1 }
        }
        for (id, state) in episodeStates {
            guard let podcast = library.podcastId(of: id) else { continue }
            if state == .completed { downloaded[podcast, default: 0] += 1 }
            if !isPlayed(id) { handled[podcast, default: 0] += 1 }  // has a download, not counted as played
        }
        var out: [Int64: (new: Int, downloaded: Int)] = [:]
        for p in library.podcasts {
            let played = library.playedCount(of: p.id) + (playedDelta[p.id] ?? 0)
            out[p.id] = (max(0, library.episodeCount(of: p.id) - played - (handled[p.id] ?? 0)), downloaded[p.id] ?? 0)
        }
        return out
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
        /// The downloads of the gauge (unfinished, and those completed since; ``DownloadRow/inGauge``)
        /// whose size is known (or estimated by the feed): bytes received of bytes in all.
        public var received: Int64 = 0
        public var total: Int64 = 0
    }

    /// Counts by state and the total speed.
    public var totals: Totals {
        var t = Totals()
        for row in downloads {
            switch row.state {
            case .downloading, .queued, .paused, .completed:
                if row.inGauge || row.state != .completed, let size = row.expected ?? row.estimate, size > 0 {
                    t.received += row.state == .completed ? size : min(row.received, size)
                    t.total += size
                }
            default: break
            }
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
