import FoundationEssentials
import Glibc
import PodqSQLite

extension LibraryStore {
    /// Subscribes: stores the podcast and every episode of `feed` (none queued).
    /// - Throws: ``StoreError/podcastExists(id:title:)`` when the URL is already subscribed.
    /// - Parameter announce: queue the subscription for the sync server (false when the server asked for it).
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func addPodcast(url: String, feed: Feed, etag: String?, lastModified: String?, autoQueue: Bool, announce: Bool = true) throws(StoreError)
        -> (podcast: PodcastRecord, episodes: [EpisodeRecord])
    {
        try write { db in
            if let existing = try PodcastRecord.fetchOne(db, url: url) {
                throw StoreError.podcastExists(id: existing.id, title: existing.title)
            }
            var podcast = PodcastRecord(title: feed.title.isEmpty ? url : feed.title, url: url, autoQueue: autoQueue)
            Self.apply(feed, to: &podcast)
            podcast.etag = etag
            podcast.lastModified = lastModified
            podcast.lastRefresh = Date().timeIntervalSince1970
            podcast.id = try Unsaved(podcast).add(to: db)
            let added = try Self.merge(feed, podcastId: podcast.id, db: db)
            if announce { try SyncStore.queueSubscription(db, url: url, subscribe: true) }
            return (podcast, added)
        }
    }

    /// Records a refresh: the feed's fields, its validators, and its episodes; returns the new ones.
    /// A new `url` that another subscription already has is not taken (the podcast keeps its own).
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func refreshPodcast(id: Int64, url: String, feed: Feed, etag: String?, lastModified: String?) throws(StoreError) -> [EpisodeRecord] {
        try write { db in
            guard var podcast = try PodcastRecord.fetchOne(db, key: id) else { throw StoreError.noSuchPodcast(String(id)) }
            Self.apply(feed, to: &podcast)
            if try !PodcastRecord.exists(db, url: url, besides: id) { podcast.url = url }
            podcast.etag = etag
            podcast.lastModified = lastModified
            podcast.lastRefresh = Date().timeIntervalSince1970
            podcast.error = nil
            try podcast.update(db)
            return try Self.merge(feed, podcastId: id, db: db)
        }
    }

    /// Records a refresh the server answered 304: nothing of the feed changed, but its place may have
    /// (a 301 or 308, then the 304): `movedTo` is taken unless another subscription has it. Returns
    /// the URL the podcast has now.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func refreshedUnchanged(id: Int64, movedTo: String?) throws(StoreError) -> String {
        try write { db in
            guard var podcast = try PodcastRecord.fetchOne(db, key: id) else { throw StoreError.noSuchPodcast(String(id)) }
            if let movedTo, try !PodcastRecord.exists(db, url: movedTo, besides: id) { podcast.url = movedTo }
            podcast.lastRefresh = Date().timeIntervalSince1970
            podcast.error = nil
            try podcast.update(db)
            return podcast.url
        }
    }

    /// Adds the episodes of a further page of a paged feed (RFC 5005); returns the new ones.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func mergePage(podcastId id: Int64, feed: Feed) throws(StoreError) -> [EpisodeRecord] {
        try write { db in try Self.merge(feed, podcastId: id, db: db) }
    }

    /// Changes one podcast.
    @discardableResult
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func updatePodcast(id: Int64, _ change: (inout PodcastRecord) -> Void) throws(StoreError) -> PodcastRecord {
        try write { db in
            guard var podcast = try PodcastRecord.fetchOne(db, key: id) else { throw StoreError.noSuchPodcast(String(id)) }
            change(&podcast)
            try podcast.update(db)
            return podcast
        }
    }

    /// Every subscription, by title.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func podcasts() throws(StoreError) -> [PodcastRecord] {
        try read { db in try PodcastRecord.byTitle(db) }
    }

    /// The number of episodes of each podcast.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func episodeCounts() throws(StoreError) -> [Int64: Int] {
        try read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT podcastId, COUNT(*) AS n FROM episode GROUP BY podcastId")
            return Dictionary(uniqueKeysWithValues: rows.map { ($0["podcastId"] as Int64, $0["n"] as Int) })
        }
    }

    /// The largest episode id (0 with none): the width a listing's id column needs, read from the
    /// primary key's end, not the table.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func largestEpisodeId() throws(StoreError) -> Int64 {
        try read { db in try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM episode") ?? 0 }
    }

    /// The podcast `query` names: its id, its feed URL, or its title (case-insensitive).
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func podcast(matching query: String) throws(StoreError) -> PodcastRecord {
        let found = try read { db -> PodcastRecord? in
            if let id = Int64(query), let p = try PodcastRecord.fetchOne(db, key: id) { return p }
            if let p = try PodcastRecord.fetchOne(db, url: query) { return p }
            return try PodcastRecord.fetchAll(db).first { $0.title.lowercased() == query.lowercased() }
        }
        guard let found else { throw .noSuchPodcast(query) }
        return found
    }

    /// Every subscription's feed URL (one column of one table: what `podq import` checks outlines against).
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func podcastURLs() throws(StoreError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT url FROM podcast") }
    }

    /// Unsubscribes; its episodes go, its downloads stay in the queue.
    /// Unsubscribes (its downloads and files stay).
    /// - Parameter announce: queue the change for the sync server (false when the server asked for it).
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func removePodcast(id: Int64, announce: Bool = true) throws(StoreError) {
        let deleted = try write { db -> Bool in
            guard let podcast = try PodcastRecord.fetchOne(db, key: id) else { return false }
            try PodcastRecord.deleteOne(db, key: id)
            if announce { try SyncStore.queueSubscription(db, url: podcast.syncURL ?? podcast.url, subscribe: false) }
            return true
        }
        if !deleted { throw .noSuchPodcast(String(id)) }
    }

    /// What a list of episodes shows of one: no notes, no enclosures (the TUI's library).
    public struct EpisodeSummary: Sendable, Equatable {
        public var id: Int64
        public var podcastId: Int64
        public var title: String
        public var published: Double?
        public var duration: Int?
        public var length: Int64?
        public var downloadId: Int64?
        public var played: Bool
        /// Where the listening stopped, in seconds; nil when never played.
        public var position: Int? = nil
    }

    /// Every episode's ``EpisodeSummary``, newest first (undated last), read without blocking a thread.
    /// Columns are read by position: a name lookup per column and row costs more than the read at
    /// 100,000 episodes.
    public func episodeSummaries() async throws(StoreError) -> [EpisodeSummary] {
        try await episodeSummaries(into: { count, _ in
            var all: [EpisodeSummary] = []
            all.reserveCapacity(count)
            return all
        }) { $0.append($1) }
    }

    /// Every episode's ``EpisodeSummary``, newest first (undated last), handed to `add` one at a time
    /// within one read, without blocking a thread: `make` is called first with the number of
    /// episodes and the bytes of all their titles (room made once, not doubled as it fills), and what
    /// `add` built is returned. Nothing holds all the summaries at once.
    public func episodeSummaries<Result: Sendable>(
        into make: @escaping @Sendable (_ count: Int, _ titleBytes: Int) -> Result,
        _ add: @escaping @Sendable (inout Result, EpisodeSummary) -> Void
    ) async throws(StoreError) -> Result {
        try await readAsync { db in
            let size = try Row.fetchOne(db, sql: "SELECT count(*), total(length(CAST(title AS BLOB))) FROM episode")
            var result = make(size?[0] ?? 0, Int.clamped(size?[1] as Double? ?? 0))
            let cursor = try Row.fetchCursor(
                db,
                sql: """
                    SELECT id, podcastId, title, published, duration, length, downloadId, playedAt IS NOT NULL, position FROM episode
                    ORDER BY published IS NULL, published DESC, id DESC
                    """)
            while let row = try cursor.next() {
                add(
                    &result,
                    EpisodeSummary(
                        id: row[0], podcastId: row[1], title: row[2], published: row[3], duration: row[4],
                        length: row[5], downloadId: row[6], played: row[7], position: row[8]))
            }
            return result
        }
    }

    /// ``podcasts()`` without blocking a thread.
    public func podcasts() async throws(StoreError) -> [PodcastRecord] {
        try await readAsync { db in try PodcastRecord.byTitle(db) }
    }

    /// What tells whether a podcast changed: its id, title, last refresh and error.
    public struct PodcastStamp: Sendable, Equatable {
        public var id: Int64
        public var title: String
        public var lastRefresh: Double?
        public var error: String?

        /// The stamp of `podcast` as read.
        public init(_ podcast: PodcastRecord) {
            self.init(id: podcast.id, title: podcast.title, lastRefresh: podcast.lastRefresh, error: podcast.error)
        }

        public init(id: Int64, title: String, lastRefresh: Double?, error: String?) {
            self.id = id
            self.title = title
            self.lastRefresh = lastRefresh
            self.error = error
        }
    }

    /// Every podcast's ``PodcastStamp``, by id: what the TUI looks at every few seconds to notice
    /// another process's feed work. Four columns and no sort by title (the whole records, sorted
    /// with the locale's collation, were most of an idle TUI's CPU).
    public func podcastStamps() async throws(StoreError) -> [PodcastStamp] {
        try await readAsync { db in
            try Row.fetchAll(db, sql: "SELECT id, title, lastRefresh, error FROM podcast ORDER BY id").map { row in
                PodcastStamp(id: row[0], title: row[1], lastRefresh: row[2], error: row[3])
            }
        }
    }

    /// ``podcasts()`` and ``episodeCounts()`` in one read, without blocking a thread.
    public func podcastsWithCounts() async throws(StoreError) -> (podcasts: [PodcastRecord], counts: [Int64: Int]) {
        try await readAsync { db in
            let podcasts = try PodcastRecord.byTitle(db)
            let rows = try Row.fetchAll(db, sql: "SELECT podcastId, COUNT(*) AS n FROM episode GROUP BY podcastId")
            return (podcasts, Dictionary(uniqueKeysWithValues: rows.map { ($0[0] as Int64, $0[1] as Int) }))
        }
    }

    /// One episode with its podcast.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func episode(id: Int64) throws(StoreError) -> (episode: EpisodeRecord, podcast: PodcastRecord) {
        let found = try read { db -> (EpisodeRecord, PodcastRecord)? in
            guard let e = try EpisodeRecord.fetchOne(db, key: id), let p = try PodcastRecord.fetchOne(db, key: e.podcastId) else { return nil }
            return (e, p)
        }
        guard let found else { throw .noSuchEpisode(id) }
        return found
    }

    // MARK: - Merging a feed

    static func apply(_ feed: Feed, to podcast: inout PodcastRecord) {
        if !feed.title.isEmpty { podcast.title = feed.title }
        podcast.link = feed.link
        podcast.description = feed.description
        podcast.author = feed.author
        podcast.imageURL = feed.imageURL
        podcast.repairs = feed.repairs.isEmpty ? nil : feed.repairs.summary
    }

    /// Adds the feed's episodes not seen before and refreshes the fields of those already known.
    /// Returns the new ones, in document order.
    ///
    /// An episode is known by its GUID first. Only an item or row without a GUID (or whose GUID the
    /// feed no longer carries) is matched by its enclosure URL, compared whole, query included (less
    /// well-known tracking parameters: ``EpisodeRecord/key(for:)``), so `get.php?id=1` and `?id=2` stay
    /// two episodes. A row is matched by URL at most once per merge, so rows that an older podq merged
    /// come apart again on the next refresh.
    ///
    /// The known rows are read without their show notes (a feed of 2,000 episodes with long notes held
    /// 45 MB of them twice): an episode's notes are compared and written by SQLite itself, and only
    /// the columns that changed are written (a refresh that changes nothing writes nothing).
    static func merge(_ feed: Feed, podcastId: Int64, db: Database) throws -> [EpisodeRecord] {
        let columns = try db.columnNames(in: EpisodeRecord.databaseTableName).filter { $0 != "description" }.map { "\"\($0)\"" }
        let known = try EpisodeRecord.fetchAll(
            db, sql: "SELECT \(columns.joined(separator: ", ")) FROM episode WHERE podcastId = ? ORDER BY id", arguments: [podcastId])
        let feedGUIDs = Set(feed.episodes.compactMap(\.guid))
        var byGUID: [String: EpisodeRecord] = [:]
        var byKey: [String: EpisodeRecord] = [:]
        for e in known {
            if let guid = e.guid { byGUID[guid] = e }
            // Only a row no item claims by GUID can be found by its URL.
            if e.guid.map({ !feedGUIDs.contains($0) }) ?? true { byKey[EpisodeRecord.key(for: e.url)] = byKey[EpisodeRecord.key(for: e.url)] ?? e }
        }
        let now = Date().timeIntervalSince1970
        var added: [EpisodeRecord] = []
        for item in feed.episodes {
            guard let enclosure = item.preferredEnclosure else { continue }
            let key = EpisodeRecord.key(for: enclosure.url)
            var record: EpisodeRecord
            if let guid = item.guid, let found = byGUID[guid] {
                record = found
            } else if let found = byKey.removeValue(forKey: key) {
                record = found
            } else {
                record = EpisodeRecord(podcastId: podcastId, guid: item.guid, enclosureKey: key, title: item.title, url: enclosure.url, firstSeenAt: now)
            }
            let before = record  // as stored: only what changes from it is written
            if let guid = item.guid { record.guid = guid }
            if let downloadId = record.downloadId, record.upstreamChange == nil,
                let done = try Row.fetchOne(
                    db, sql: "SELECT commitSize, bytesReceived FROM download WHERE id = ? AND state = 'completed'",
                    arguments: [downloadId])
            {
                let size: Int64? = done["commitSize"] ?? done["bytesReceived"]
                record.upstreamChange = UpstreamChange.detect(
                    oldURL: record.url, newURL: enclosure.url, oldLength: record.length,
                    newLength: enclosure.length, fileSize: size)
            }
            record.title = item.title
            record.link = item.link
            record.published = item.published?.timeIntervalSince1970
            record.duration = item.duration
            record.url = enclosure.url
            record.enclosureKey = key
            record.type = enclosure.type
            record.length = enclosure.length
            record.enclosures = EpisodeRecord.storedEnclosures(item.enclosures)
            record.digests = PublishedDigest.stored(enclosure.digests)
            record.transcripts = item.transcripts.isEmpty ? nil : (try? JSONEncoder().encode(item.transcripts)).map { String(decoding: $0, as: UTF8.self) }
            record.chaptersURL = item.chaptersURL
            record.imageURL = item.imageURL
            record.season = item.season
            record.episodeNumber = item.episodeNumber
            if record.id == 0 {  // not stored yet
                record.description = item.description
                record.id = try Unsaved(record).add(to: db)
                added.append(record)
                if record.description?.isEmpty == false { try indexNotes(episodeId: record.id, description: record.description, db: db) }
                record.description = nil  // as the known rows: the notes are the store's to compare
            } else {
                try record.updateChanges(db, from: before)
                try db.execute(
                    sql: "UPDATE episode SET description = ? WHERE id = ? AND description IS NOT ?",
                    arguments: [item.description, record.id, item.description])
                if db.changesCount > 0 { try indexNotes(episodeId: record.id, description: item.description, db: db) }
            }
            if let guid = record.guid { byGUID[guid] = record } else { byKey[key] = record }  // the same file twice in one feed
        }
        return added
    }
}

extension EpisodeRecord {
    /// An episode not stored yet (id 0).
    init(podcastId: Int64, guid: String?, enclosureKey: String, title: String, url: String, firstSeenAt: Double) {
        self.init(
            id: 0, podcastId: podcastId, guid: guid, enclosureKey: enclosureKey, title: title, link: nil, description: nil,
            published: nil, duration: nil, url: url, type: nil, length: nil, season: nil, episodeNumber: nil,
            firstSeenAt: firstSeenAt, downloadId: nil)
    }
}
