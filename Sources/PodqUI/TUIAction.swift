import PodqCore

/// What a key asks the session to do to the queue or the subscriptions. The controller decides, the
/// session carries it out (store, runner, network) and reports back with a message.
public enum TUIAction: Sendable, Equatable {
    /// Pause, resume, cancel or retry one download.
    case perform(DownloadEvent, id: Int64)
    /// Make a download the next to start.
    case startNext(id: Int64)
    /// Move a download up (-1) or down (+1) in the queue.
    case move(id: Int64, by: Int)
    /// Raise (+1) or lower (-1) the number of simultaneous downloads.
    case changeLimit(by: Int)
    /// Raise (+1) or lower (-1) the number of simultaneous downloads from one host.
    case changePerHost(by: Int)
    /// Raise (`>`, doubling it, up to none) or lower (`<`, halving it) the speed limit the downloads share.
    case changeRate(faster: Bool)
    /// Pause everything (true) or resume everything (false).
    case pauseAll(Bool)
    /// Remove a download's row, deleting its partial file, and its final file when `deletingFile`.
    case remove(id: Int64, deletingFile: Bool)
    /// Queue an episode.
    case queueEpisode(id: Int64)
    /// Queue several episodes (the marked ones).
    case queueEpisodes(ids: [Int64])
    /// Pause, resume, cancel or retry several downloads (the marked ones).
    case performMany(DownloadEvent, ids: [Int64])
    /// Remove several rows, deleting completed files when `deletingFiles`.
    case removeMany(ids: [Int64], deletingFiles: Bool)
    /// Queue episodes of podcasts: the `latest` N of each, or (nil) every one never queued.
    case queueFromPodcasts(ids: [Int64], latest: Int?)
    /// Mark episodes played (true) or not played.
    case setPlayed(ids: [Int64], played: Bool)
    /// Read what the detail pane shows of a row (its notes come from the store).
    case loadDetail(view: TUIView, id: Int64)
    /// Find the episodes whose show notes match a search (in the background: ``TUIController/receive(_:state:snapshot:)``).
    case searchNotes(String)
    /// Subscribe to a feed.
    case addFeed(url: String)
    /// Search the podcast directories for words (`a`, then words): the answer comes back as
    /// ``TUIEvent/directory(_:)``.
    case searchDirectory(String)
    /// Subscribe to a show found in a directory, then show its episodes (``TUIEvent/showPodcast(id:title:)``).
    case subscribeFound(url: String, title: String)
    /// Re-fetch every feed.
    case refreshFeeds
    /// Sync with the account's server now (push, then pull).
    case sync
    /// Unsubscribe.
    case removePodcast(id: Int64)
    /// Open a completed download's file with the configured player: its row and player are looked up
    /// in the background, then ``startPlayer(id:)`` follows.
    case play(id: Int64)
    /// Read the transcript of row `id` of `view` (an episode, or a download's episode), fetching it
    /// from the feed when the store has none: the answer comes back as ``TUIEvent/transcript(_:)``.
    case loadTranscript(view: TUIView, id: Int64)
    /// Find words in every transcript (`T`): the hits come back as ``TUIEvent/transcript(_:)``.
    case searchTranscripts(String)
    /// Play episode `id`'s downloaded file from `at` seconds (a transcript's line; nil: where it was
    /// left): looked up in the background, then ``startPlayer(id:)`` follows with its download.
    case playEpisode(id: Int64, at: Int?)
    /// The player for download `id` is ready: give it the terminal.
    case startPlayer(id: Int64)
    /// Leave: running downloads stop with their partial files kept.
    case quit
}
