import FoundationEssentials
import Glibc
import PodqSQLite

/// The sync account and the durable queue of changes for the sync server (docs/SYNC.md): every change
/// podq makes that the server should hear of is written here first, in the same transaction as the
/// change where it can be, and removed only once the server took it.
extension SyncStore {
    /// The one sync account.
    public struct SyncAccount: Sendable, Equatable {
        public var server: String
        public var flavour: SyncFlavour
        public var user: String
        /// This device's id (gpodder flavour).
        public var device: String?
        /// The command that prints the password; nil when it is in the desktop keyring.
        public var passwordCommand: String?
        /// The password is in the desktop keyring (`secret-tool`).
        public var keyring: Bool
        /// The server's times to ask from next.
        public var subscriptionsSince: Int64 = 0
        public var actionsSince: Int64 = 0
        public var lastPush: Double?
        public var lastPull: Double?
        public var lastError: String?

        public init(server: String, flavour: SyncFlavour, user: String, device: String?, passwordCommand: String?, keyring: Bool) {
            self.server = server
            self.flavour = flavour
            self.user = user
            self.device = device
            self.passwordCommand = passwordCommand
            self.keyring = keyring
        }
    }

    /// One change waiting for the server.
    public struct SyncChange: Sendable, Equatable {
        public enum Kind: String, Sendable {
            case subscribe, unsubscribe, action
        }
        public var id: Int64
        public var kind: Kind
        /// The feed's URL.
        public var url: String
        /// The episode action, for `.action`.
        public var action: EpisodeAction?
    }

    static func createSyncTables(_ db: Database) throws {
        // A parked change (`parked`: why the server refused it) is kept (and shown) but not sent again.
        try db.execute(
            sql: """
                CREATE TABLE "sync_account" ("id" INTEGER PRIMARY KEY CHECK ("id" = 1), "server" TEXT NOT NULL, "flavour" TEXT NOT NULL, \
                "user" TEXT NOT NULL, "device" TEXT, "passwordCommand" TEXT, "keyring" BOOLEAN NOT NULL DEFAULT 0, \
                "subscriptionsSince" INTEGER NOT NULL DEFAULT 0, "actionsSince" INTEGER NOT NULL DEFAULT 0, "lastPush" DOUBLE, \
                "lastPull" DOUBLE, "lastError" TEXT);
                CREATE TABLE "sync_change" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "kind" TEXT NOT NULL, "url" TEXT NOT NULL, \
                "episode" TEXT, "guid" TEXT, "action" TEXT, "timestamp" INTEGER NOT NULL, "started" INTEGER, "position" INTEGER, \
                "total" INTEGER, "parked" TEXT)
                """)
        try db.add(columns: ["position INTEGER", "positionAt DOUBLE"], to: "episode")
        try db.add(columns: ["syncURL TEXT"], to: "podcast")
    }

    /// A feed episode's download completed (by the runner, reconcile, any podq): on a gpodder.net
    /// account a `download` action is queued in the same transaction, as the ledger is written.
    static func createSyncDownloadTrigger(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TRIGGER sync_on_completed AFTER UPDATE OF state ON download
                WHEN NEW.state = 'completed' AND OLD.state IS NOT 'completed' AND NEW.episodeId IS NOT NULL
                     AND EXISTS (SELECT 1 FROM sync_account WHERE flavour = 'gpodder')
                BEGIN
                    INSERT INTO sync_change (kind, url, episode, guid, action, timestamp)
                    SELECT 'action', IFNULL(podcast.syncURL, podcast.url), episode.url, episode.guid, 'download',
                           CAST(IFNULL(NEW.completedAt, strftime('%s', 'now')) AS INTEGER)
                    FROM episode JOIN podcast ON podcast.id = episode.podcastId WHERE episode.id = NEW.episodeId;
                END;
                """)
    }

    /// The files of these episodes were deleted by podq (cleanup, `x` with the file, `queue remove
    /// --delete-file`): on a gpodder.net account a `delete` action is queued for each.
    public func announceDeleted(episodeIds: [Int64]) async {
        guard !episodeIds.isEmpty else { return }
        _ = try? await writeAsync { db in try Self.queueDeletes(db, episodeIds) }
    }

    /// ``announceDeleted(episodeIds:)`` in the caller's thread.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func announceDeletedNow(episodeIds: [Int64]) {
        guard !episodeIds.isEmpty else { return }
        _ = try? write { db in try Self.queueDeletes(db, episodeIds) }
    }

    static func queueDeletes(_ db: Database, _ ids: [Int64]) throws {
        guard try Row.fetchOne(db, sql: "SELECT 1 FROM sync_account WHERE flavour = 'gpodder'") != nil else { return }
        for id in ids {
            try db.execute(
                sql: """
                    INSERT INTO sync_change (kind, url, episode, guid, action, timestamp)
                    SELECT 'action', IFNULL(podcast.syncURL, podcast.url), episode.url, episode.guid, 'delete', ?
                    FROM episode JOIN podcast ON podcast.id = episode.podcastId WHERE episode.id = ?
                    """, arguments: [Int64(Date().timeIntervalSince1970), id])
        }
    }

    // MARK: - The account

    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func syncAccount() throws(StoreError) -> SyncAccount? {
        try read { db in try Self.account(db) }
    }

    static func account(_ db: Database) throws -> SyncAccount? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM sync_account WHERE id = 1") else { return nil }
        var account = SyncAccount(
            server: row["server"], flavour: SyncFlavour(rawValue: row["flavour"]) ?? .gpodder, user: row["user"], device: row["device"],
            passwordCommand: row["passwordCommand"], keyring: row["keyring"])
        account.subscriptionsSince = row["subscriptionsSince"]
        account.actionsSince = row["actionsSince"]
        account.lastPush = row["lastPush"]
        account.lastPull = row["lastPull"]
        account.lastError = row["lastError"]
        return account
    }

    /// Logs in: the account replaces any other, and the queue of changes starts empty (the first sync
    /// sends every subscription).
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func saveSyncAccount(_ account: SyncAccount) throws(StoreError) {
        try write { db in
            try db.execute(sql: "DELETE FROM sync_account")
            try db.execute(sql: "DELETE FROM sync_change")
            try db.execute(
                sql: """
                    INSERT INTO sync_account (id, server, flavour, user, device, passwordCommand, keyring, subscriptionsSince, actionsSince)
                    VALUES (1, ?, ?, ?, ?, ?, ?, 0, 0)
                    """,
                arguments: [account.server, account.flavour.rawValue, account.user, account.device, account.passwordCommand, account.keyring])
            try db.execute(sql: "DELETE FROM sync_future")
            // The first push sends every subscription podq has (on the web: not a file's).
            for row in try Row.fetchAll(db, sql: "SELECT url, syncURL FROM podcast ORDER BY id") {
                try Self.queueSubscription(db, url: (row["syncURL"] as String?) ?? row["url"], subscribe: true)
            }
        }
    }

    /// Logs out: the account and its unsent changes go.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func deleteSyncAccount() throws(StoreError) -> SyncAccount? {
        try write { db in
            let account = try Self.account(db)
            try db.execute(sql: "DELETE FROM sync_account")
            try db.execute(sql: "DELETE FROM sync_change")
            return account
        }
    }

    /// Records the end of a push or a pull (and the server's times), or why it failed.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func recordSync(
        pushed: Bool = false, pulled: Bool = false, subscriptionsSince: Int64? = nil, actionsSince: Int64? = nil, error: String?
    ) throws(StoreError) {
        try write { db in
            let now = Date().timeIntervalSince1970
            if pushed { try db.execute(sql: "UPDATE sync_account SET lastPush = ?", arguments: [now]) }
            if pulled { try db.execute(sql: "UPDATE sync_account SET lastPull = ?", arguments: [now]) }
            if let subscriptionsSince { try db.execute(sql: "UPDATE sync_account SET subscriptionsSince = ?", arguments: [subscriptionsSince]) }
            if let actionsSince { try db.execute(sql: "UPDATE sync_account SET actionsSince = ?", arguments: [actionsSince]) }
            try db.execute(sql: "UPDATE sync_account SET lastError = ?", arguments: [error])
        }
    }

    /// Starts the next sync from the beginning (`podq sync --full`).
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func resetSyncTimes() throws(StoreError) {
        try write { db in try db.execute(sql: "UPDATE sync_account SET subscriptionsSince = 0, actionsSince = 0") }
    }

    // MARK: - The queue of changes

    /// Queues a subscription change when an account exists. Never the same feed in an add and a
    /// remove: the last intent replaces an earlier one still waiting.
    /// A feed that is not on the web (a file's path) is never queued: no server can take it.
    static func queueSubscription(_ db: Database, url: String, subscribe: Bool) throws {
        guard try Row.fetchOne(db, sql: "SELECT 1 FROM sync_account") != nil else { return }
        let key = SyncURL.key(url)
        // Set aside ones too: the last intent replaces a refused one (`podq remove` clears it).
        let waiting = try Row.fetchAll(db, sql: "SELECT id, url FROM sync_change WHERE kind IN ('subscribe', 'unsubscribe')")
        for row in waiting where SyncURL.key(row["url"]) == key {
            try db.execute(sql: "DELETE FROM sync_change WHERE id = ?", arguments: [row["id"] as Int64])
        }
        guard SyncURL.webFeed(url) != nil else { return }
        try db.execute(
            sql: "INSERT INTO sync_change (kind, url, timestamp) VALUES (?, ?, ?)",
            arguments: [subscribe ? "subscribe" : "unsubscribe", url, Int64(Date().timeIntervalSince1970)])
    }

    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func queueSubscriptionChange(url: String, subscribe: Bool) throws(StoreError) {
        try write { db in try Self.queueSubscription(db, url: url, subscribe: subscribe) }
    }

    /// Queues an episode action when an account exists; a newer play of the same episode replaces one
    /// still waiting (the server needs the last position only).
    static func queueAction(_ db: Database, _ action: EpisodeAction) throws {
        guard try Row.fetchOne(db, sql: "SELECT 1 FROM sync_account") != nil else { return }
        if action.action == .play {
            try db.execute(
                sql: "DELETE FROM sync_change WHERE kind = 'action' AND action = 'play' AND episode = ? AND url = ? AND parked IS NULL",
                arguments: [action.episode, action.podcast])
        }
        try db.execute(
            sql: """
                INSERT INTO sync_change (kind, url, episode, guid, action, timestamp, started, position, total)
                VALUES ('action', ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                action.podcast, action.episode, action.guid, action.action.rawValue, action.timestamp, action.started, action.position,
                action.total,
            ])
    }

    /// What a player heard of `episode` (podq's own listening, `podq play` with mpv): the position is
    /// stored, or at the end the episode is marked played; either is queued for the sync server as a
    /// play, in the same transaction.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func recordListening(episode id: Int64, started: Int, position: Int, total: Int?, reachedEnd: Bool) throws(StoreError) {
        try write { db in
            let now = Date().timeIntervalSince1970
            if reachedEnd {
                try db.execute(
                    sql: "UPDATE episode SET playedAt = IFNULL(playedAt, ?1), position = IFNULL(?2, IFNULL(duration, position)), positionAt = ?1 WHERE id = ?3",
                    arguments: [now, total, id])
                let stated = try Int.fetchOne(db, sql: "SELECT duration FROM episode WHERE id = ?", arguments: [id])
                let length = total ?? stated ?? position
                if let action = try LibraryStore.playedAction(db, episode: id, at: Int64(now), heard: (length, length, length)) {
                    try Self.queueAction(db, action)
                }
            } else {
                try db.execute(sql: "UPDATE episode SET position = ?, positionAt = ? WHERE id = ?", arguments: [position, now, id])
                if let action = try LibraryStore.playedAction(db, episode: id, at: Int64(now), heard: (started, position, total)) {
                    try Self.queueAction(db, action)
                }
            }
        }
    }

    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func queueEpisodeAction(_ action: EpisodeAction) throws(StoreError) {
        try write { db in try Self.queueAction(db, action) }
    }

    /// The changes waiting (parked ones left out), oldest first.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func pendingSyncChanges() throws(StoreError) -> [SyncChange] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM sync_change WHERE parked IS NULL ORDER BY id").compactMap(Self.change)
        }
    }

    /// Every change, waiting or set aside, oldest first, with why the server refused a set-aside one.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func allSyncChanges() throws(StoreError) -> [(change: SyncChange, setAside: String?)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM sync_change ORDER BY id").compactMap { row in
                guard let change = Self.change(row) else { return nil }
                return (change, row["parked"])
            }
        }
    }

    static func change(_ row: Row) -> SyncChange? {
        guard let kind = SyncChange.Kind(rawValue: row["kind"]) else { return nil }
        var action: EpisodeAction?
        if kind == .action, let name: String = row["action"], let type = EpisodeAction.Kind(rawValue: name) {
            action = EpisodeAction(
                podcast: row["url"], episode: row["episode"] ?? "", guid: row["guid"], action: type, timestamp: row["timestamp"],
                started: row["started"], position: row["position"], total: row["total"])
        }
        return SyncChange(id: row["id"], kind: kind, url: row["url"], action: action)
    }

    /// Set-aside changes go back to waiting (`podq sync retry`, `--full`): all of them, or those of
    /// `ids`. Returns how many.
    @discardableResult
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func retrySyncChanges(_ ids: [Int64]? = nil) throws(StoreError) -> Int {
        try write { db in
            if let ids {
                guard !ids.isEmpty else { return 0 }
                try db.execute(
                    sql: "UPDATE sync_change SET parked = NULL WHERE parked IS NOT NULL AND id IN (\(ids.map { _ in "?" }.joined(separator: ",")))",
                    arguments: StatementArguments(ids))
            } else {
                try db.execute(sql: "UPDATE sync_change SET parked = NULL WHERE parked IS NOT NULL")
            }
            return db.changesCount
        }
    }

    /// How many changes wait, and how many the server refused (parked).
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func syncChangeCounts() throws(StoreError) -> (pending: Int, parked: Int) {
        try read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sync_change WHERE parked IS NULL") ?? 0,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sync_change WHERE parked IS NOT NULL") ?? 0
            )
        }
    }

    /// The server took these (or the user dropped them: `podq sync drop`). Returns how many went.
    @discardableResult
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func removeSyncChanges(_ ids: [Int64]) throws(StoreError) -> Int {
        guard !ids.isEmpty else { return 0 }
        return try write { db in
            try db.execute(sql: "DELETE FROM sync_change WHERE id IN (\(ids.map { _ in "?" }.joined(separator: ",")))", arguments: StatementArguments(ids))
            return db.changesCount
        }
    }

    /// The server refused this one alone: it is kept with the reason, and not sent again.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func parkSyncChange(_ id: Int64, reason: String) throws(StoreError) {
        try write { db in try db.execute(sql: "UPDATE sync_change SET parked = ? WHERE id = ?", arguments: [reason, id]) }
    }
}
