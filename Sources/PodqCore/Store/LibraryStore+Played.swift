import FoundationEssentials
import Glibc
import PodqSQLite

/// Played and not played, and where an episode was left: each mark made here queued for the sync
/// server in the same transaction.
extension LibraryStore {
    /// Marks episodes played (now) or not played; returns how many changed. A mark made here (not one a
    /// sync server sent) is queued for the server as a play to the end (`started = position = total =
    /// duration`), in the same transaction.
    @discardableResult
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func setPlayed(episodeIds: [Int64], played: Bool) throws(StoreError) -> Int {
        try write { db in
            var changed = 0
            let now = Date().timeIntervalSince1970
            for id in episodeIds {
                try db.execute(
                    sql: played
                        ? "UPDATE episode SET playedAt = ?1, position = IFNULL(duration, position), positionAt = ?1 WHERE id = ?2 AND playedAt IS NULL"
                        // Not played: heard from the start again; the time stays, so an older play (a
                        // sync's overlap window) does not mark it played again.
                        : "UPDATE episode SET playedAt = NULL, position = NULL, positionAt = ?1 WHERE id = ?2 AND playedAt IS NOT NULL",
                    arguments: [now, id])
                changed += db.changesCount
                if played, db.changesCount > 0, let action = try Self.playedAction(db, episode: id, at: Int64(now)) {
                    try SyncStore.queueAction(db, action)
                }
            }
            return changed
        }
    }

    /// Stores where a player is while it plays (mpv's follower, every ten seconds of audio and at a
    /// seek), so a crash or `kill -9` of podq keeps the place.
    /// No sync change is queued (the player's end queues the one play); a played episode is left alone.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func savePosition(episode id: Int64, position: Int) throws(StoreError) {
        try write { db in
            try db.execute(
                sql: "UPDATE episode SET position = ?, positionAt = ? WHERE id = ? AND playedAt IS NULL",
                arguments: [position, Date().timeIntervalSince1970, id])
        }
    }

    /// The play action that says `episode` was heard to the end, with its feed and media URL as the
    /// server knows them; nil when the episode is gone. With `heard` (started, position, total), a play
    /// that stopped there instead.
    static func playedAction(_ db: Database, episode id: Int64, at timestamp: Int64, heard: (Int, Int, Int?)? = nil) throws -> EpisodeAction? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT episode.url, episode.guid, episode.duration, episode.length, podcast.url AS feed, podcast.syncURL
                    FROM episode JOIN podcast ON podcast.id = episode.podcastId WHERE episode.id = ?
                    """, arguments: [id])
        else { return nil }
        let duration: Int? = row["duration"]
        let feed: String = row["feed"]
        let syncURL: String? = row["syncURL"]
        if let (started, position, total) = heard {
            return EpisodeAction(
                podcast: syncURL ?? feed, episode: row["url"], guid: row["guid"], action: .play, timestamp: timestamp, started: started,
                position: position, total: total ?? duration ?? max(position, 1))
        }
        return EpisodeAction.played(podcast: syncURL ?? feed, episode: row["url"], guid: row["guid"], duration: duration ?? 1, at: timestamp)
    }
}
