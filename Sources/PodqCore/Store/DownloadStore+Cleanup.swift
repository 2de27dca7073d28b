import FoundationEssentials
import Glibc
import PodqSQLite

/// A completed download of a feed episode, with what the cleanup rules need.
public struct CleanupCandidate: Sendable, Equatable {
    public var download: DownloadRecord
    public var podcastId: Int64
    /// The episode was marked played (serial mode cleans those up).
    public var played = false

    public init(download: DownloadRecord, podcastId: Int64, played: Bool = false) {
        self.download = download
        self.podcastId = podcastId
        self.played = played
    }

    /// The file's size as committed (else as counted).
    public var size: Int64 { download.commitSize ?? download.bytesReceived }

    /// When the file arrived: the date both rules go by. Not the publication date, so that an old
    /// episode downloaded today is not deleted at the next cleanup.
    public var date: Double { download.completedAt ?? download.createdAt }
}

extension DownloadStore {
    /// Every completed download made from a feed episode (URLs queued by hand are never cleaned up).
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func completedEpisodeDownloads() throws(StoreError) -> [CleanupCandidate] {
        try read { db in
            let sql = """
                SELECT download.*, episode.podcastId AS cleanupPodcastId, episode.playedAt AS cleanupPlayedAt
                FROM download JOIN episode ON episode.id = download.episodeId
                WHERE download.state = 'completed'
                """
            return try Row.fetchAll(db, sql: sql).map { row in
                let played: Double? = row["cleanupPlayedAt"]
                return CleanupCandidate(download: try DownloadRecord(row: row), podcastId: row["cleanupPodcastId"], played: played != nil)
            }
        }
    }
}
