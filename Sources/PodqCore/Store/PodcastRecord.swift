import FoundationEssentials
import Glibc
import PodqBase
import PodqSQLite

/// A subscription, as stored (docs/STORE.md). Read from the store, it has its row's id; one not stored
/// yet has 0 until ``LibraryStore`` adds it.
public struct PodcastRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "podcast"
    public var id: Int64
    public var title: String
    /// The feed's URL (updated when the feed moves permanently), or a file path for a local feed.
    public var url: String
    public var link: String?
    public var description: String?
    public var author: String?
    public var imageURL: String?
    /// Validators of the last fetch, for conditional GET.
    public var etag: String?
    public var lastModified: String?
    public var lastRefresh: Double?
    /// The last refresh's failure, nil when it worked.
    public var error: String?
    /// What the last read of the feed had to mend (``FeedRepairs/summary``), nil for a clean feed.
    public var repairs: String?
    /// Queue new episodes by themselves on refresh.
    public var autoQueue: Bool
    public var createdAt: Double
    /// The login's user name for a private feed (`podq add --user`), nil for none.
    public var loginUser: String?
    /// The login's password, when given at `add` (never printed; the database is the user's own, 0600).
    public var loginPassword: String?
    /// A command that prints the password (`pass show podcasts/x`), run when it is needed.
    public var passwordCommand: String?
    /// Where the login goes: the scheme, host and port of the URL the user gave it for
    /// (`https://feeds.example.com:443`). A feed that moves elsewhere (a redirect, `itunes:new-feed-url`,
    /// a web page's link) keeps no login there until `podq login` gives it again.
    public var loginOrigin: String? = nil
    /// The `User-Agent` for this podcast's feed and episodes (`podq add --user-agent`), nil for the config's.
    public var userAgent: String?
    /// Its own rules (``PodcastSettings``) as JSON; nil when it follows the config in everything.
    public var settings: String? = nil
    /// The feed's URL as the sync server writes it, when it rewrote podq's (`update_urls`).
    public var syncURL: String? = nil

    public init(id: Int64 = 0, title: String, url: String, autoQueue: Bool = false, now: Date = Date()) {
        self.id = id
        self.title = title
        self.url = url
        self.autoQueue = autoQueue
        self.createdAt = now.timeIntervalSince1970
    }

    /// ``settings`` read (a column that cannot be read counts as no rules) and written.
    public var rules: PodcastSettings {
        get { settings.flatMap { try? JSONDecoder().decode(PodcastSettings.self, from: Data($0.utf8)) } ?? PodcastSettings() }
        set {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            settings = newValue.isEmpty ? nil : (try? encoder.encode(newValue)).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// Its own settings as `podq set` names them: ``PodcastSettings/pairs`` and its `user-agent`.
    public var settingPairs: [(key: String, value: String)] {
        rules.pairs + (userAgent.map { [("user-agent", $0)] } ?? [])
    }

    /// Whether a refresh queues its new episodes: its own `auto-queue`, else `podq add --auto` or the
    /// config's `auto-queue`; serial mode queues by itself.
    public func autoQueues(config: Bool) -> Bool {
        rules.autoQueue ?? (autoQueue || config || rules.serial != nil)
    }
}

/// An episode of a subscription, as stored. Read from the store, it has its row's id; one not stored
/// yet has 0 until a feed's merge adds it.
public struct EpisodeRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "episode"
    public var id: Int64
    public var podcastId: Int64
    public var guid: String?
    /// The enclosure URL as ``key(for:)`` makes it: the second key for deduplication.
    public var enclosureKey: String
    public var title: String
    public var link: String?
    public var description: String?
    public var published: Double?
    public var duration: Int?
    public var url: String
    public var type: String?
    public var length: Int64?
    public var season: Int?
    public var episodeNumber: Int?
    public var firstSeenAt: Double
    /// The download made from it, if any.
    public var downloadId: Int64?
    /// Every enclosure of the item, in document order, as JSON (`[{"url":…,"type":…,"length":…}]`),
    /// when it has more than one (``url`` is the chosen one: ``FeedEpisode/preferredEnclosure``); nil otherwise.
    public var enclosures: String? = nil
    /// When the user marked it played (Unix seconds); nil: not played.
    public var playedAt: Double? = nil
    /// The publisher's digests of ``url``'s file (``PublishedDigest/stored(_:)``); nil when the feed
    /// gives none.
    public var digests: String? = nil
    /// Why the downloaded file is no longer what the feed gives (``UpstreamChange``): set by a refresh,
    /// cleared when the episode is queued again or marked downloaded. Nil when it is not.
    public var upstreamChange: String? = nil
    /// Its transcripts as JSON (`[{"url","type","language"}]`), its chapters file and its own image,
    /// for offline-complete episodes (`sidecars`); nil when the feed gives none.
    public var transcripts: String? = nil
    public var chaptersURL: String? = nil
    public var imageURL: String? = nil
    /// Where the listening stopped, in seconds (a sync server's play, or the player's); nil when never played.
    public var position: Int? = nil
    /// When that position was reached (the play action's time, seconds since 1970): a later one wins.
    public var positionAt: Double? = nil

    /// ``transcripts`` read back.
    public var allTranscripts: [Transcript] {
        transcripts.flatMap { try? JSONDecoder().decode([Transcript].self, from: Data($0.utf8)) } ?? []
    }

    /// ``enclosures`` read back: every file of the item, or only ``url`` when it has one.
    public var allEnclosures: [Enclosure] {
        guard let enclosures, let stored = try? JSONDecoder().decode([StoredEnclosure].self, from: Data(enclosures.utf8)) else {
            return [Enclosure(url: url, type: type, length: length)]
        }
        return stored.map { Enclosure(url: $0.url, type: $0.type, length: $0.length) }
    }

    /// `enclosures` as ``enclosures`` stores them: nil for one.
    static func storedEnclosures(_ enclosures: [Enclosure]) -> String? {
        guard enclosures.count > 1 else { return nil }
        let stored = enclosures.map { StoredEnclosure(url: $0.url, type: $0.type, length: $0.length) }
        return (try? JSONEncoder().encode(stored)).map { String(decoding: $0, as: UTF8.self) }
    }

    private struct StoredEnclosure: Codable {
        var url: String
        var type: String?
        var length: Int64?
    }

    /// The enclosure URL, whole (its query included: `get.php?id=1` and `?id=2` are two files),
    /// without its fragment and without well-known tracking parameters (`utm_*`, `fbclid`…), which
    /// change while the file stays the same.
    public static func key(for url: String) -> String {
        let noFragment = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? url
        guard let question = noFragment.firstIndex(of: "?") else { return noFragment }
        let kept = noFragment[noFragment.index(after: question)...].split(separator: "&").filter { pair in
            let name = pair.split(separator: "=", maxSplits: 1).first.map { $0.lowercased() } ?? ""
            return !(name.hasPrefix("utm_") || trackingParameters.contains(name))
        }
        let base = String(noFragment[..<question])
        return kept.isEmpty ? base : base + "?" + kept.joined(separator: "&")
    }

    /// Query parameters that mark who sent a listener, not which file.
    static let trackingParameters: Set<String> = ["fbclid", "gclid", "dclid", "msclkid", "mc_cid", "mc_eid", "_hsenc", "_hsmi", "igshid", "yclid"]
}

extension PodcastRecord {
    /// The podcast whose feed is `url`.
    static func fetchOne(_ db: Database, url: String) throws -> PodcastRecord? {
        try fetchOne(db, sql: "SELECT * FROM podcast WHERE url = ?", arguments: [url])
    }

    /// Whether a podcast other than `id` has the feed `url`.
    static func exists(_ db: Database, url: String, besides id: Int64) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM podcast WHERE url = ? AND id != ?)", arguments: [url, id]) ?? false
    }

    /// Every podcast, by title as a person reads a list (``TextOrder``: letters first, then accents and
    /// case, numbers by value), then in the order they were added.
    static func byTitle(_ db: Database) throws -> [PodcastRecord] {
        try TextOrder.sorted(fetchAll(db).sorted { $0.id < $1.id }) { $0.title }
    }
}
