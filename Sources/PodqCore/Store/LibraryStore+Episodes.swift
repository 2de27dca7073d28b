import PodqSQLite

extension LibraryStore {
    /// Flags an episode as updated upstream with `reason` (``EpisodeRecord/upstreamChange``).
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func markUpdatedUpstream(episodeId: Int64, reason: String) throws(StoreError) {
        try write { db in
            try db.execute(sql: "UPDATE episode SET upstreamChange = ? WHERE id = ?", arguments: [reason, episodeId])
        }
    }

    /// The podcast's episodes whose downloaded file is no longer what the feed gives
    /// (``EpisodeRecord/upstreamChange``), oldest first.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func updatedUpstream(podcastId: Int64) throws(StoreError) -> [EpisodeRecord] {
        try read { db in
            try EpisodeRecord.fetchAll(
                db, sql: "SELECT * FROM episode WHERE podcastId = ? AND upstreamChange IS NOT NULL ORDER BY published, id", arguments: [podcastId])
        }
    }

    /// Every podcast's own rules that are set (``PodcastSettings``), by podcast id.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func podcastRules() throws(StoreError) -> [Int64: PodcastSettings] {
        try read { db in
            var rules: [Int64: PodcastSettings] = [:]
            for p in try PodcastRecord.fetchAll(db, sql: "SELECT * FROM podcast WHERE settings IS NOT NULL ORDER BY id") {
                rules[p.id] = p.rules
            }
            return rules
        }
    }
}
