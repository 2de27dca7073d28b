import GRDB

extension QueueStore {
    /// The podcast's episodes whose downloaded file is no longer what the feed gives
    /// (``EpisodeRecord/upstreamChange``), oldest first.
    public func updatedUpstream(podcastId: Int64) throws(StoreError) -> [EpisodeRecord] {
        try read { db in
            try EpisodeRecord.filter(Column("podcastId") == podcastId && Column("upstreamChange") != nil)
                .order(Column("published"), Column("id")).fetchAll(db)
        }
    }
}
