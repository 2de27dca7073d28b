import FoundationEssentials
import Glibc
import PodqSQLite

/// Listing episodes for the commands (`podq episodes`, `queue add --latest`, `verify`): whole, or one
/// row at a time (``forEachEpisode(podcastId:notesMatching:_:)``), so that a listing of 100,000
/// episodes keeps one in memory, not all of them.
extension LibraryStore {
    /// An episode with what a listing shows next to it.
    public struct EpisodeListing: Sendable, Equatable {
        public var episode: EpisodeRecord
        public var podcastTitle: String
        /// The state of its download, or nil when it has none (`new`).
        public var downloadState: String?
        /// Whether the ledger has it (downloaded or marked so before): read by
        /// ``forEachEpisode(podcastId:notesMatching:_:)`` only, false otherwise.
        public var inLedger = false
        /// Whether its show notes matched the words asked for: read by
        /// ``forEachEpisode(podcastId:notesMatching:_:)`` only, false otherwise.
        public var notesMatch = false
    }

    /// The order of every listing: newest first, undated last, then the newest stored first.
    static let listingOrder = " ORDER BY episode.published IS NULL, episode.published DESC, episode.id DESC"

    /// Episodes, newest first (undated last), of one podcast or all, whole (their notes included).
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func episodes(podcastId: Int64? = nil) throws(StoreError) -> [EpisodeListing] {
        try read { db in
            var sql = """
                SELECT episode.*, podcast.title AS podcastTitle, download.state AS downloadState
                FROM episode JOIN podcast ON podcast.id = episode.podcastId
                LEFT JOIN download ON download.id = episode.downloadId
                """
            var arguments: StatementArguments = []
            if let podcastId {
                sql += " WHERE episode.podcastId = ?"
                arguments = [podcastId]
            }
            sql += Self.listingOrder
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                EpisodeListing(episode: try EpisodeRecord(row: row), podcastTitle: row["podcastTitle"], downloadState: row["downloadState"])
            }
        }
    }

    /// Calls `body` with each episode, newest first (undated last), of one podcast or all, one row at
    /// a time within one read: memory stays flat in the number of episodes. The rows carry no show
    /// notes, digests or transcripts (``EpisodeRecord/description`` is nil), and say whether the
    /// ledger has them and, when `notesMatching` has words, whether their show notes match them (the
    /// full-text index: ``episodesMatchingNotes(_:)``). `onlyNew` keeps the episodes never queued, not in
    /// the ledger and not played; `onlyUpdated` those whose file changed upstream: SQLite leaves the
    /// others out, so `podq episodes --new` reads only what it lists.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func forEachEpisode(
        podcastId: Int64? = nil, notesMatching: String? = nil, onlyNew: Bool = false, onlyUpdated: Bool = false,
        _ body: (EpisodeListing) throws -> Void
    ) throws(StoreError) {
        try read { db in
            let match = notesMatching.flatMap(Self.notesMatch)
            var arguments: StatementArguments = []
            if let match { arguments += [match] }
            if let podcastId { arguments += [podcastId] }
            let sql = Self.listingStatement(onePodcast: podcastId != nil, notes: match != nil, onlyNew: onlyNew, onlyUpdated: onlyUpdated)
            let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            // Columns by position, in the order of the SELECT: decoding by name was 40% of the time.
            while let row = try rows.next() {
                let episode = EpisodeRecord(
                    id: row[0], podcastId: row[1], guid: row[2], enclosureKey: row[3], title: row[4], link: row[5], description: nil,
                    published: row[6], duration: row[7], url: row[8], type: row[9], length: row[10], season: row[11],
                    episodeNumber: row[12], firstSeenAt: row[13], downloadId: row[14], enclosures: row[15], playedAt: row[16],
                    digests: nil, upstreamChange: row[17], transcripts: nil, chaptersURL: row[18], imageURL: row[19], position: row[24],
                    positionAt: row[25])
                try body(EpisodeListing(episode: episode, podcastTitle: row[20], downloadState: row[21], inLedger: row[22], notesMatch: row[23]))
            }
        }
    }

    /// Whether the ledger has the episode: its enclosure key (any subscription), or its GUID in its
    /// own feed (``episodeIdsInLedger()``'s rule).
    static let inLedgerSQL = """
        (EXISTS (SELECT 1 FROM ledger WHERE ledger.enclosureKey = episode.enclosureKey)
         OR (IFNULL(episode.guid, '') != ''
             AND EXISTS (SELECT 1 FROM ledger WHERE ledger.guid = episode.guid AND ledger.feedURL = podcast.url)))
        """

    /// The statement of ``forEachEpisode(podcastId:notesMatching:onlyNew:onlyUpdated:_:)``: its
    /// arguments are the notes' FTS5 expression when `notes`, then the podcast's id when `onePodcast`.
    /// Per row it looks up the podcast, the download and the ledger by index (QueryPlanTests).
    static func listingStatement(onePodcast: Bool, notes: Bool, onlyNew: Bool = false, onlyUpdated: Bool = false) -> String {
        var conditions: [String] = []
        if onePodcast { conditions.append("episode.podcastId = ?") }
        if onlyNew { conditions.append("download.id IS NULL AND episode.playedAt IS NULL AND NOT \(inLedgerSQL)") }
        if onlyUpdated { conditions.append("episode.upstreamChange IS NOT NULL") }
        return """
            SELECT episode.id, episode.podcastId, episode.guid, episode.enclosureKey, episode.title, episode.link,
                   episode.published, episode.duration, episode.url, episode.type, episode.length, episode.season,
                   episode.episodeNumber, episode.firstSeenAt, episode.downloadId, episode.enclosures, episode.playedAt,
                   episode.upstreamChange, episode.chaptersURL, episode.imageURL,
                   podcast.title AS podcastTitle, download.state AS downloadState,
                   \(inLedgerSQL) AS inLedger,
                   \(notes ? "episode.id IN (SELECT rowid FROM episode_notes WHERE episode_notes MATCH ?)" : "0") AS notesMatch,
                   episode.position, episode.positionAt
            FROM episode JOIN podcast ON podcast.id = episode.podcastId
            LEFT JOIN download ON download.id = episode.downloadId
            """ + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")) + listingOrder
    }

    /// The ids of a podcast's episodes, newest first: the `latest` newest (all when nil), and of those
    /// only the ones with no download row when `onlyNeverQueued`.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func episodeIds(podcastId: Int64, latest: Int? = nil, onlyNeverQueued: Bool = false) throws(StoreError) -> [Int64] {
        try read { db in
            var sql = """
                SELECT episode.id FROM episode LEFT JOIN download ON download.id = episode.downloadId
                WHERE episode.podcastId = ?
                """
            if onlyNeverQueued { sql += " AND download.id IS NULL" }
            sql += Self.listingOrder
            if let latest { sql += " LIMIT \(max(0, latest))" }
            return try Int64.fetchAll(db, sql: sql, arguments: [podcastId])
        }
    }
}
