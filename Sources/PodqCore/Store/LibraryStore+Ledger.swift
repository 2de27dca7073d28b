import FoundationEssentials
import Glibc
import PodqSQLite

/// The ledger (issue 18, point 4): every feed episode ever downloaded, or marked as downloaded, by its
/// enclosure key and its GUID with its feed's URL, so that auto-queue never fetches it again, whatever
/// became of its file and its queue row (deleted, moved, cleaned up), and whichever subscription it
/// shows up in next (the same show under a second feed URL, a rerun item with a new GUID).
///
/// Its writers, one for each way in: the trigger `ledger_on_completed`, which SQLite runs whenever a
/// download row of a feed episode becomes `completed` (by the runner, by reconcile at start-up, by any
/// podq), and ``markDownloaded(episodeIds:)`` (`podq mark-downloaded`). Nothing deletes from it.
extension LibraryStore {
    /// Creates the table and the trigger, and fills it from the downloads completed so far.
    static func createLedger(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE ledger (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    enclosureKey TEXT NOT NULL,
                    guid TEXT NOT NULL DEFAULT '',
                    feedURL TEXT NOT NULL DEFAULT '',
                    title TEXT NOT NULL DEFAULT '',
                    how TEXT NOT NULL,
                    recordedAt REAL NOT NULL,
                    UNIQUE (enclosureKey, guid, feedURL)
                );
                CREATE INDEX ledger_guid ON ledger (guid, feedURL);
                CREATE TRIGGER ledger_on_completed AFTER UPDATE OF state ON download
                WHEN NEW.state = 'completed' AND OLD.state IS NOT 'completed' AND NEW.episodeId IS NOT NULL
                BEGIN
                    INSERT OR IGNORE INTO ledger (enclosureKey, guid, feedURL, title, how, recordedAt)
                    SELECT episode.enclosureKey, IFNULL(episode.guid, ''), podcast.url, episode.title, 'downloaded',
                           IFNULL(NEW.completedAt, strftime('%s', 'now'))
                    FROM episode JOIN podcast ON podcast.id = episode.podcastId WHERE episode.id = NEW.episodeId;
                END;
                INSERT OR IGNORE INTO ledger (enclosureKey, guid, feedURL, title, how, recordedAt)
                SELECT episode.enclosureKey, IFNULL(episode.guid, ''), podcast.url, episode.title, 'downloaded',
                       IFNULL(download.completedAt, download.updatedAt)
                FROM download JOIN episode ON episode.id = download.episodeId JOIN podcast ON podcast.id = episode.podcastId
                WHERE download.state = 'completed';
                """)
    }

    /// Records `episodeIds` as downloaded without downloading them (`podq mark-downloaded`). Returns how
    /// many were not in the ledger before.
    @discardableResult
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func markDownloaded(episodeIds: [Int64]) throws(StoreError) -> Int {
        try write { db in
            let now = Date().timeIntervalSince1970
            var added = 0
            for id in episodeIds {
                guard let e = try EpisodeRecord.fetchOne(db, key: id) else { throw StoreError.noSuchEpisode(id) }
                if e.upstreamChange != nil { try db.execute(sql: "UPDATE episode SET upstreamChange = NULL WHERE id = ?", arguments: [id]) }
                if try Self.inLedger(e, db: db) { continue }
                let feed = try String.fetchOne(db, sql: "SELECT url FROM podcast WHERE id = ?", arguments: [e.podcastId]) ?? ""
                try db.execute(
                    sql: """
                        INSERT OR IGNORE INTO ledger (enclosureKey, guid, feedURL, title, how, recordedAt) VALUES (?, ?, ?, ?, 'marked', ?)
                        """, arguments: [e.enclosureKey, e.guid ?? "", feed, e.title, now])
                added += db.changesCount
            }
            return added
        }
    }

    /// The episodes of `episodeIds` that the ledger does not have: those auto-queue may fetch.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func notInLedger(_ episodeIds: [Int64]) throws(StoreError) -> [Int64] {
        try read { db in
            try episodeIds.filter { id in
                guard let e = try EpisodeRecord.fetchOne(db, key: id) else { return false }
                return try !Self.inLedger(e, db: db)
            }
        }
    }

    /// Every episode the ledger has (``inLedger(_:db:)``), in one query: what `podq episodes --new`
    /// leaves out.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func episodeIdsInLedger() throws(StoreError) -> Set<Int64> {
        try read { db in
            Set(
                try Int64.fetchAll(
                    db,
                    sql: """
                        SELECT episode.id FROM episode JOIN podcast ON podcast.id = episode.podcastId
                        WHERE EXISTS (SELECT 1 FROM ledger WHERE ledger.enclosureKey = episode.enclosureKey)
                           OR (IFNULL(episode.guid, '') != ''
                               AND EXISTS (SELECT 1 FROM ledger WHERE ledger.guid = episode.guid AND ledger.feedURL = podcast.url))
                        """))
        }
    }

    /// True when the ledger has `episode`: its enclosure key (in any subscription), or its GUID in its
    /// own feed (a GUID is only unique within a feed; many feeds number theirs).
    static func inLedger(_ episode: EpisodeRecord, db: Database) throws -> Bool {
        if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM ledger WHERE enclosureKey = ?)", arguments: [episode.enclosureKey]) == true {
            return true
        }
        guard let guid = episode.guid, !guid.isEmpty else { return false }
        return try Bool.fetchOne(
            db,
            sql: """
                SELECT EXISTS (SELECT 1 FROM ledger JOIN podcast ON podcast.url = ledger.feedURL
                               WHERE ledger.guid = ? AND podcast.id = ?)
                """, arguments: [guid, episode.podcastId]) == true
    }
}

extension LibraryStore {
    /// Serial mode's episodes to queue: of the podcast's episodes not yet played and admitted by
    /// `admits`, the `count` oldest (by publication, then id), less those that already have a
    /// download (queued, running, paused, completed or failed: only a cancelled one is taken again).
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func serialCandidates(podcastId: Int64, count: Int, admits: (EpisodeRecord) -> Bool) throws(StoreError) -> [Int64] {
        try read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT episode.*, download.state AS serialState FROM episode LEFT JOIN download ON download.id = episode.downloadId
                    WHERE episode.podcastId = ? AND episode.playedAt IS NULL
                    ORDER BY episode.published IS NULL, episode.published, episode.id
                    """, arguments: [podcastId])
            var taken: [Int64] = []
            var kept = 0
            for row in rows where kept < count {
                let episode = try EpisodeRecord(row: row)
                guard admits(episode) else { continue }
                kept += 1
                let state: String? = row["serialState"]
                let id = episode.id
                if state == nil || state == StoredState.cancelled.rawValue { taken.append(id) }
            }
            return taken
        }
    }
}
