import Foundation
import PodqCore
import PodqUI

/// The Episodes and Podcasts views' rows, read from the store when something changed, and the
/// feeds' stated lengths by download id (the estimates of downloads whose length is unknown).
/// Shared between the session (main actor) and the runner's callbacks, under a lock.
final class TUILibrary: @unchecked Sendable {
    private let store: QueueStore
    private let lock = NSLock()
    private var _episodes: [EpisodeRow] = []
    private var _podcasts: [PodcastRow] = []
    private var _estimates: [Int64: Int64] = [:]
    private var stale = true
    private var loadedAt = 0.0

    init(store: QueueStore) {
        self.store = store
    }

    var episodes: [EpisodeRow] { lock.withLock { _episodes } }
    var podcasts: [PodcastRow] { lock.withLock { _podcasts } }
    var estimates: [Int64: Int64] { lock.withLock { _estimates } }

    /// Asks for a reload (a download changed state, a feed was added or refreshed).
    func markStale() {
        lock.withLock { stale = true }
    }

    /// Reloads when marked stale, at most once per `interval` seconds unless `now`. Returns true when
    /// it reloaded.
    @discardableResult
    func reloadIfNeeded(at time: Double, interval: Double = 1, force: Bool = false) throws(StoreError) -> Bool {
        let due = lock.withLock { stale && (force || time - loadedAt >= interval) }
        guard due else { return false }
        let listings = try store.episodes()
        let podcasts = try store.podcasts()
        let counts = try store.episodeCounts()
        var estimates: [Int64: Int64] = [:]
        let episodes = listings.map { l in
            let e = l.episode
            if let download = e.downloadId, let length = e.length, length > 0 { estimates[download] = length }
            return EpisodeRow(id: e.id ?? 0, podcastId: e.podcastId, podcast: SafeText.clean(l.podcastTitle), title: SafeText.clean(e.title),
                              published: e.published, duration: e.duration, length: e.length, state: l.downloadState ?? "new")
        }
        let podcastRows = podcasts.map { p in
            PodcastRow(id: p.id ?? 0, title: SafeText.clean(p.title), url: SafeText.clean(p.url), episodes: counts[p.id ?? 0] ?? 0,
                       lastRefresh: p.lastRefresh, error: p.error.map(SafeText.clean), autoQueue: p.autoQueue)
        }
        lock.withLock {
            _episodes = episodes
            _podcasts = podcastRows
            _estimates = estimates
            stale = false
            loadedAt = time
        }
        return true
    }
}
