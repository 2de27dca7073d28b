import Foundation
import GRDB

/// What a sync server sent, applied to the library: plays (positions and played marks) matched to
/// episodes, and the URLs it rewrote. Pulls are idempotent: an action applied once changes nothing the
/// second time, so a pull may ask again from a little before the last one (the overlap window).
extension QueueStore {
    /// What applying plays did.
    public struct AppliedPlays: Sendable, Equatable {
        /// Episodes whose position was set (a later play than the one stored).
        public var positions = 0
        /// Episodes newly marked played (a play to the end).
        public var played = 0
        /// Plays of episodes podq does not have (a podcast not subscribed here, an episode not in its feed).
        public var unmatched = 0

        public init() {}
    }

    /// Applies received plays: each is matched to an episode by its GUID in its feed, else by every URL
    /// the episode was seen under (as published, without tracking parameters, inside an analytics
    /// prefix, where its download was redirected); a play later than the episode's stored one sets the
    /// position, and a play to the end marks it played. Downloads and deletes from other devices are
    /// never acted on. Nothing is queued for the server: these came from it.
    public func applyPlays(_ actions: [EpisodeAction]) throws(StoreError) -> AppliedPlays {
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
                // A play with no time (some clients send none) counts as heard now.
                let when = play.timestamp > 0 ? Double(play.timestamp) : Date().timeIntervalSince1970
                let stored = try Row.fetchOne(db, sql: "SELECT position, positionAt, playedAt FROM episode WHERE id = ?", arguments: [episode])
                let positionAt: Double? = stored?["positionAt"]
                guard positionAt.map({ when > $0 }) ?? true else { continue }
                // The same position again (a play with no time of its own, seen on every pull) changes nothing.
                let storedPosition: Int? = stored?["position"]
                if let position = play.position, position != storedPosition {
                    try db.execute(sql: "UPDATE episode SET position = ?, positionAt = ? WHERE id = ?", arguments: [position, when, episode])
                    applied.positions += 1
                }
                let playedAt: Double? = stored?["playedAt"]
                if play.reachesTheEnd, playedAt == nil {
                    try db.execute(sql: "UPDATE episode SET playedAt = ? WHERE id = ?", arguments: [when, episode])
                    applied.played += 1
                }
            }
            return applied
        }
    }

    /// The server rewrote these feed URLs (`update_urls`): podq keeps its own and remembers the
    /// server's, so what the server sends back matches, and waiting changes use it.
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
    public func podcast(syncURL url: String) throws(StoreError) -> PodcastRecord? {
        let key = SyncURL.key(url)
        return try read { db in
            try PodcastRecord.fetchAll(db).first { SyncURL.key($0.url) == key || $0.syncURL.map(SyncURL.key) == key }
        }
    }

    /// Remembers the server's form of a podcast's feed URL (a feed subscribed from the server that
    /// podq found under another URL).
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
            if let stored: String = row["enclosures"], let data = stored.data(using: .utf8),
                let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]
            {
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
