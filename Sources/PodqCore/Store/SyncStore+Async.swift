import FoundationEssentials
import Glibc

/// The sync account and its changes from async code: each synchronous entry point (`@available(*, noasync)`: the compiler refuses it
/// in async code) has this twin of the same name, which runs it on a thread of the store's own
/// (``StorePart/run(_:)``), so the cooperative pool never waits for SQLite or another program's lock.
/// The queue runner's own writes are the pool's async ones (DownloadStore+Runner.swift).
extension SyncStore {
    /// ``syncAccount()`` from async code, off the cooperative pool.
    public func syncAccount() async throws(StoreError) -> SyncAccount? {
        try await run { part throws(StoreError) in try part.syncAccount() }
    }

    /// ``saveSyncAccount(_:)`` from async code, off the cooperative pool.
    public func saveSyncAccount(_ account: SyncAccount) async throws(StoreError) {
        try await run { part throws(StoreError) in try part.saveSyncAccount(account) }
    }

    /// ``deleteSyncAccount()`` from async code, off the cooperative pool.
    public func deleteSyncAccount() async throws(StoreError) -> SyncAccount? {
        try await run { part throws(StoreError) in try part.deleteSyncAccount() }
    }

    /// ``recordSync(pushed:pulled:subscriptionsSince:actionsSince:error:)`` from async code, off the cooperative pool.
    public func recordSync(pushed: Bool = false, pulled: Bool = false, subscriptionsSince: Int64? = nil, actionsSince: Int64? = nil, error: String?)
        async throws(StoreError)
    {
        try await run { part throws(StoreError) in
            try part.recordSync(pushed: pushed, pulled: pulled, subscriptionsSince: subscriptionsSince, actionsSince: actionsSince, error: error)
        }
    }

    /// ``resetSyncTimes()`` from async code, off the cooperative pool.
    public func resetSyncTimes() async throws(StoreError) {
        try await run { part throws(StoreError) in try part.resetSyncTimes() }
    }

    /// ``queueSubscriptionChange(url:subscribe:)`` from async code, off the cooperative pool.
    public func queueSubscriptionChange(url: String, subscribe: Bool) async throws(StoreError) {
        try await run { part throws(StoreError) in try part.queueSubscriptionChange(url: url, subscribe: subscribe) }
    }

    /// ``recordListening(episode:started:position:total:reachedEnd:)`` from async code, off the cooperative pool.
    public func recordListening(episode id: Int64, started: Int, position: Int, total: Int?, reachedEnd: Bool) async throws(StoreError) {
        try await run { part throws(StoreError) in
            try part.recordListening(episode: id, started: started, position: position, total: total, reachedEnd: reachedEnd)
        }
    }

    /// ``queueEpisodeAction(_:)`` from async code, off the cooperative pool.
    public func queueEpisodeAction(_ action: EpisodeAction) async throws(StoreError) {
        try await run { part throws(StoreError) in try part.queueEpisodeAction(action) }
    }

    /// ``pendingSyncChanges()`` from async code, off the cooperative pool.
    public func pendingSyncChanges() async throws(StoreError) -> [SyncChange] {
        try await run { part throws(StoreError) in try part.pendingSyncChanges() }
    }

    /// ``allSyncChanges()`` from async code, off the cooperative pool.
    public func allSyncChanges() async throws(StoreError) -> [(change: SyncChange, setAside: String?)] {
        try await run { part throws(StoreError) in try part.allSyncChanges() }
    }

    /// ``retrySyncChanges(_:)`` from async code, off the cooperative pool.
    @discardableResult
    public func retrySyncChanges(_ ids: [Int64]? = nil) async throws(StoreError) -> Int {
        try await run { part throws(StoreError) in try part.retrySyncChanges(ids) }
    }

    /// ``syncChangeCounts()`` from async code, off the cooperative pool.
    public func syncChangeCounts() async throws(StoreError) -> (pending: Int, parked: Int) {
        try await run { part throws(StoreError) in try part.syncChangeCounts() }
    }

    /// ``removeSyncChanges(_:)`` from async code, off the cooperative pool.
    @discardableResult
    public func removeSyncChanges(_ ids: [Int64]) async throws(StoreError) -> Int {
        try await run { part throws(StoreError) in try part.removeSyncChanges(ids) }
    }

    /// ``parkSyncChange(_:reason:)`` from async code, off the cooperative pool.
    public func parkSyncChange(_ id: Int64, reason: String) async throws(StoreError) {
        try await run { part throws(StoreError) in try part.parkSyncChange(id, reason: reason) }
    }

    /// ``applyPlays(_:now:)`` from async code, off the cooperative pool.
    public func applyPlays(_ actions: [EpisodeAction], now: Double = Date().timeIntervalSince1970) async throws(StoreError) -> AppliedPlays {
        try await run { part throws(StoreError) in try part.applyPlays(actions, now: now) }
    }

    /// ``applyUpdatedURLs(_:)`` from async code, off the cooperative pool.
    public func applyUpdatedURLs(_ pairs: [(String, String)]) async throws(StoreError) {
        try await run { part throws(StoreError) in try part.applyUpdatedURLs(pairs) }
    }

    /// ``podcast(syncURL:)`` from async code, off the cooperative pool.
    public func podcast(syncURL url: String) async throws(StoreError) -> PodcastRecord? {
        try await run { part throws(StoreError) in try part.podcast(syncURL: url) }
    }

    /// ``podcastsBySyncKey()`` from async code, off the cooperative pool.
    public func podcastsBySyncKey() async throws(StoreError) -> [String: PodcastRecord] {
        try await run { part throws(StoreError) in try part.podcastsBySyncKey() }
    }

    /// ``setSyncURL(podcast:url:)`` from async code, off the cooperative pool.
    public func setSyncURL(podcast id: Int64, url: String?) async throws(StoreError) {
        try await run { part throws(StoreError) in try part.setSyncURL(podcast: id, url: url) }
    }
}
