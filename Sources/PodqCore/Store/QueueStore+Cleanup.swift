import Foundation
import GRDB

/// A completed download of a feed episode, with what the cleanup rules need.
public struct CleanupCandidate: Sendable, Equatable {
    public var download: DownloadRecord
    public var podcastId: Int64

    /// When the file arrived: the date both rules go by. Not the publication date, so that an old
    /// episode downloaded today is not deleted at the next cleanup.
    public var date: Double { download.completedAt ?? download.createdAt }
}

extension QueueStore {
    /// Every completed download made from a feed episode (URLs queued by hand are never cleaned up).
    public func completedEpisodeDownloads() throws(StoreError) -> [CleanupCandidate] {
        try read { db in
            let sql = """
                SELECT download.*, episode.podcastId AS cleanupPodcastId
                FROM download JOIN episode ON episode.id = download.episodeId
                WHERE download.state = 'completed'
                """
            return try Row.fetchAll(db, sql: sql).map { row in
                CleanupCandidate(download: try DownloadRecord(row: row), podcastId: row["cleanupPodcastId"])
            }
        }
    }
}
