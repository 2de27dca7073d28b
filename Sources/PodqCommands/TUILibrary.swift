import Foundation
import Synchronization
import PodqCore
import PodqUI

/// The Episodes and Podcasts views' rows, read from the store when something changed, and the
/// feeds' stated lengths by download id (the estimates of downloads whose length is unknown).
/// Shared between the session (main actor) and the runner's callbacks, behind a `Mutex`.
final class TUILibrary: Sendable {
    private struct Rows {
        var episodes: [EpisodeRow] = []
        var podcasts: [PodcastRow] = []
        var estimates: [Int64: Int64] = [:]
        var stale = true
        var loadedAt = 0.0
    }

    private let store: QueueStore
    private let rows = Mutex(Rows())

    init(store: QueueStore) {
        self.store = store
    }

    var episodes: [EpisodeRow] { rows.withLock { $0.episodes } }
    var podcasts: [PodcastRow] { rows.withLock { $0.podcasts } }
    var estimates: [Int64: Int64] { rows.withLock { $0.estimates } }

    /// Asks for a reload (a download changed state, a feed was added or refreshed).
    func markStale() {
        rows.withLock { $0.stale = true }
    }

    /// Reloads when marked stale, at most once per `interval` seconds unless `now`. Returns true when
    /// it reloaded.
    @discardableResult
    func reloadIfNeeded(at time: Double, interval: Double = 1, force: Bool = false) throws(StoreError) -> Bool {
        let due = rows.withLock { $0.stale && (force || time - $0.loadedAt >= interval) }
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
                       lastRefresh: p.lastRefresh, error: p.error.map(SafeText.clean), autoQueue: p.autoQueue,
                       repairs: p.repairs.map(SafeText.clean))
        }
        rows.withLock {
            $0.episodes = episodes
            $0.podcasts = podcastRows
            $0.estimates = estimates
            $0.stale = false
            $0.loadedAt = time
        }
        return true
    }
}
