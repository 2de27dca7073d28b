import FoundationEssentials
import Glibc
import PodqBase
import PodqSQLite

/// What a sync server sent, applied to the library: plays (positions and played marks) matched to
/// episodes, and the URLs it rewrote. Pulls are idempotent: an action applied once changes nothing the
/// second time, so a pull may ask again from a little before the last one (the overlap window).
extension SyncStore {
    /// What applying plays did.
    public struct AppliedPlays: Sendable, Equatable {
        /// Episodes whose position was set (a later play than the one stored).
        public var positions = 0
        /// Episodes newly marked played (a play to the end).
        public var played = 0
        /// Played episodes a later play left before the end: not played any more.
        public var unplayed = 0
        /// Plays of episodes podq does not have (a podcast not subscribed here, an episode not in its feed).
        public var unmatched = 0

        public init() {}

        /// `other`'s counts added (plays applied in batches).
        public static func += (a: inout AppliedPlays, b: AppliedPlays) {
            a.positions += b.positions
            a.played += b.played
            a.unplayed += b.unplayed
            a.unmatched += b.unmatched
        }
    }

    /// How far ahead of this machine's clock a play's time may be before it counts as a wrong clock.
    public static let clockSkew: Double = 600

    /// Applies received plays by one rule, the same on every device (docs/SYNC.md, "One truth"):
    ///
    /// - each is matched to an episode by its GUID in its feed, else by every URL the episode was seen
    ///   under (as published, without tracking parameters, inside an analytics prefix, where its
    ///   download was redirected);
    /// - the latest event by its own time wins: a play later than what the episode holds (its position's
    ///   time and its played mark's) sets the position; one from more than ``clockSkew`` in the future (a
    ///   phone with a wrong clock) counts at the time it first arrived, remembered, so it never outranks
    ///   what is done here later;
    /// - a play to the end marks it played, judged against the episode's own duration when the feed
    ///   gives one (a device's `total` may be another length); a later play that ends before the end
    ///   makes a played episode unplayed again, so every device shows the same.
    ///
    /// Downloads and deletes from other devices are never acted on. Nothing is queued for the server:
    /// these came from it. Applying the same plays again changes nothing.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func applyPlays(_ actions: [EpisodeAction], now: Double = Date().timeIntervalSince1970) throws(StoreError) -> AppliedPlays {
        let plays = actions.filter { $0.action == .play }.sorted { $0.timestamp < $1.timestamp }
        guard !plays.isEmpty else { return AppliedPlays() }
        return try write { db in
            var applied = AppliedPlays()
            let podcasts = try Row.fetchAll(db, sql: "SELECT id, url, syncURL FROM podcast")
            var byKey: [String: Int64] = [:]
            for row in podcasts {
                byKey[SyncURL.key(row["url"])] = row["id"]
                if let sync: String = row["syncURL"] { byKey[SyncURL.key(sync)] = row["id"] }
            }
            var matchers: [Int64: EpisodeMatcher] = [:]
            for play in plays {
                guard let podcast = byKey[SyncURL.key(play.podcast)] else {
                    applied.unmatched += 1
                    continue
                }
                if matchers[podcast] == nil { matchers[podcast] = try EpisodeMatcher(db, podcast: podcast) }
                guard let episode = matchers[podcast]?.match(guid: play.guid, url: play.episode) else {
                    applied.unmatched += 1
                    continue
                }
                let when = try Self.time(of: play, db: db, now: now)
                let stored = try Row.fetchOne(db, sql: "SELECT position, positionAt, playedAt, duration FROM episode WHERE id = ?", arguments: [episode])
                // What the episode holds, and when: a time stored in the future (before this rule) counts as now.
                let positionAt: Double? = stored?["positionAt"]
                let playedAt: Double? = stored?["playedAt"]
                let latest = [positionAt, playedAt].compactMap { $0 }.map { min($0, now) }.max()
                guard latest.map({ when > $0 }) ?? true else { continue }
                // The same position again (a play with no time of its own, seen on every pull) changes nothing.
                let storedPosition: Int? = stored?["position"]
                if let position = play.position, position != storedPosition {
                    try db.execute(sql: "UPDATE episode SET position = ?, positionAt = ? WHERE id = ?", arguments: [position, when, episode])
                    applied.positions += 1
                }
                let duration: Int? = stored?["duration"]
                if play.reachesTheEnd(of: duration) {
                    if playedAt == nil {
                        try db.execute(sql: "UPDATE episode SET playedAt = ? WHERE id = ?", arguments: [when, episode])
                        applied.played += 1
                    }
                } else if playedAt != nil, play.endsBeforeTheEnd(of: duration) {
                    try db.execute(sql: "UPDATE episode SET playedAt = NULL WHERE id = ?", arguments: [episode])
                    applied.unplayed += 1
                }
            }
            return applied
        }
    }

    /// When `play` happened, for the rule: its own time; now for one with none; for one from the
    /// future, the time it first arrived (kept in `sync_future`).
    static func time(of play: EpisodeAction, db: Database, now: Double) throws -> Double {
        guard play.timestamp > 0 else { return now }
        let stamped = Double(play.timestamp)
        guard stamped > now + clockSkew else { return stamped }
        let key = [play.podcast, play.episode, play.guid ?? "", play.device ?? "", "\(play.timestamp)", "\(play.position ?? -1)"].joined(separator: "\n")
        if let first = try Double.fetchOne(db, sql: "SELECT receivedAt FROM sync_future WHERE action = ?", arguments: [key]) { return first }
        try db.execute(sql: "INSERT INTO sync_future (action, receivedAt) VALUES (?, ?)", arguments: [key, now])
        return now
    }

    /// The server rewrote these feed URLs (`update_urls`): podq keeps its own and remembers the
    /// server's, so what the server sends back matches, and waiting changes use it.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func applyUpdatedURLs(_ pairs: [(String, String)]) throws(StoreError) {
        guard !pairs.isEmpty else { return }
        try write { db in
            let podcasts = try Row.fetchAll(db, sql: "SELECT id, url, syncURL FROM podcast")
            for (old, new) in pairs where SyncURL.key(old) != SyncURL.key(new) || old != new {
                for row in podcasts where SyncURL.key(row["url"]) == SyncURL.key(old) || (row["syncURL"] as String?).map(SyncURL.key) == SyncURL.key(old) {
                    try db.execute(sql: "UPDATE podcast SET syncURL = ? WHERE id = ?", arguments: [new, row["id"] as Int64])
                }
                try db.execute(sql: "UPDATE sync_change SET url = ? WHERE url = ?", arguments: [new, old])
            }
        }
    }

    /// The subscription whose feed is `url` as a sync server writes it (its own URL or the server's form).
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func podcast(syncURL url: String) throws(StoreError) -> PodcastRecord? {
        try podcastsBySyncKey()[SyncURL.key(url)]
    }

    /// Every subscription by the key of its URL and of the server's form of it (``SyncURL/key(_:)``):
    /// read once, for a pull that looks up thousands of feeds.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func podcastsBySyncKey() throws(StoreError) -> [String: PodcastRecord] {
        try read { db in
            var map: [String: PodcastRecord] = [:]
            for podcast in try PodcastRecord.fetchAll(db) {
                if map[SyncURL.key(podcast.url)] == nil { map[SyncURL.key(podcast.url)] = podcast }
                if let sync = podcast.syncURL { map[SyncURL.key(sync)] = podcast }
            }
            return map
        }
    }

    /// Remembers the server's form of a podcast's feed URL (a feed subscribed from the server that
    /// podq found under another URL).
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func setSyncURL(podcast id: Int64, url: String?) throws(StoreError) {
        try write { db in try db.execute(sql: "UPDATE podcast SET syncURL = ? WHERE id = ?", arguments: [url, id]) }
    }
}

/// One podcast's episodes, by GUID and by every form of every URL each was seen under.
struct EpisodeMatcher {
    private var byGUID: [String: Int64] = [:]
    private var byURL: [String: Int64] = [:]

    init(_ db: Database, podcast: Int64) throws {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT episode.id, episode.guid, episode.url, episode.enclosures, download.url AS queued, download.finalURL
                FROM episode LEFT JOIN download ON download.id = episode.downloadId WHERE episode.podcastId = ?
                """, arguments: [podcast])
        for row in rows {
            let id: Int64 = row["id"]
            if let guid: String = row["guid"], !guid.isEmpty { byGUID[guid] = byGUID[guid] ?? id }
            var urls: [String] = [row["url"]]
            if let queued: String = row["queued"] { urls.append(queued) }
            if let final: String = row["finalURL"] { urls.append(final) }
            if let stored: String = row["enclosures"], let list = JSONTree.any(stored.utf8) as? [[String: Any]] {
                urls += list.compactMap { $0["url"] as? String }
            }
            for url in urls {
                for alias in SyncURL.aliases(of: url) where byURL[alias] == nil { byURL[alias] = id }
            }
        }
    }

    /// The episode a server's play is about: by GUID first, then by any form of its URL.
    func match(guid: String?, url: String) -> Int64? {
        if let guid, !guid.isEmpty, let id = byGUID[guid] { return id }
        for alias in SyncURL.aliases(of: url) {
            if let id = byURL[alias] { return id }
        }
        return nil
    }
}
