import Foundation
import Logging
import PodqCore

/// One sync with the account's server: push, then pull (docs/SYNC.md).
///
/// Push: the waiting subscription changes in one upload, then the episode actions in batches of at
/// most 30; a batch the server refuses (a 4xx other than a refused login) is split in halves until the
/// one bad action is found, which is parked with the server's reason instead of being retried forever.
/// A server that is down, or a network that fails, stops the sync with everything still queued.
///
/// Pull: the subscription changes since the last pull (on a first sync with a gpodder.net server, every
/// device's subscriptions are adopted), each new feed subscribed as `podq add` would and each removed
/// one unsubscribed (its files stay); then the plays of every device since a little before the last
/// pull (servers filter by the action's own time, so one uploaded late could be missed: the overlap
/// window, and `podq sync --full`), applied idempotently.
struct SyncRun {
    let context: QueueContext
    let transport: any HTTPTransport

    /// The most actions in one upload.
    static let batchSize = 30
    /// How far before the last pull's time the next one asks from.
    static let overlap: Int64 = 3 * 86_400

    /// What a sync did, for its line.
    struct Report: Sendable, Equatable {
        var sentSubscriptions = 0
        var sentActions = 0
        var parked: [String] = []
        var subscribed: [String] = []
        var subscribeFailed: [String] = []
        var unsubscribed: [String] = []
        var plays = QueueStore.AppliedPlays()

        /// One line: what went each way.
        var line: String {
            var sent: [String] = []
            if sentSubscriptions > 0 { sent.append(Self.count(sentSubscriptions, "subscription change")) }
            if sentActions > 0 { sent.append(Self.count(sentActions, "episode action")) }
            var received: [String] = []
            if !subscribed.isEmpty { received.append("subscribed to " + subscribed.joined(separator: ", ")) }
            if !unsubscribed.isEmpty { received.append("unsubscribed from " + unsubscribed.joined(separator: ", ") + " (files kept)") }
            if plays.positions > 0 { received.append(Self.count(plays.positions, "position")) }
            if plays.played > 0 { received.append("\(plays.played) marked played") }
            var line = "sync: sent " + (sent.isEmpty ? "nothing" : sent.joined(separator: " and "))
            line += "; received " + (received.isEmpty ? "nothing new" : received.joined(separator: "; "))
            if !subscribeFailed.isEmpty { line += "; could not subscribe to " + subscribeFailed.joined(separator: ", ") }
            if !parked.isEmpty { line += "; the server refused \(Self.count(parked.count, "change")), kept aside: " + parked.joined(separator: "; ") }
            return line
        }

        static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
    }

    /// The server of `account`, with its password.
    static func server(for account: QueueStore.SyncAccount, password: String, transport: any HTTPTransport) throws(CommandError) -> any SyncServer {
        guard let base = URL(string: account.server) else {
            throw CommandError("the sync server's URL '\(account.server)' is not a URL.", code: ExitCodes.usage)
        }
        let connection = SyncConnection(base: base, user: account.user, password: password, transport: transport)
        switch account.flavour {
        case .gpodder: return GPodderServer(connection: connection, device: account.device ?? Self.deviceID())
        case .nextcloud: return NextcloudServer(connection: connection)
        }
    }

    /// This machine's device id: `podq-<host name>`, in the characters the API allows.
    static func deviceID() -> String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "host"
        let cleaned = host.lowercased().map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "-" }
        return "podq-" + String(cleaned.prefix(40))
    }

    /// Pushes, then pulls. `full` asks the server for everything again.
    /// - Parameter given: the server to use in place of the account's (a unit test's).
    func run(full: Bool = false, using given: (any SyncServer)? = nil) async throws -> Report {
        let store = context.store
        guard let account = try store.syncAccount() else { throw CommandError(SyncError.notLoggedIn.localizedDescription, code: ExitCodes.usage) }
        let lock = HomeLock(home: context.paths.home, name: "sync.lock")
        if let holder = try lock.acquire() {
            throw CommandError(
                "another podq (\(holder.pid.map { "process \($0)" } ?? "a process")) is syncing now; this sync was not needed.",
                code: ExitCodes.locked)
        }
        defer { lock.release() }
        let server: any SyncServer
        if let given {
            server = given
        } else {
            server = try Self.server(for: account, password: try await SyncCredentials.password(for: account), transport: transport)
        }
        if full { try store.resetSyncTimes() }
        var report = Report()
        do {
            try await push(server, report: &report)
            try store.recordSync(pushed: true, error: nil)
            try await pull(server, account: try store.syncAccount() ?? account, report: &report)
        } catch let error as SyncError {
            try? store.recordSync(error: error.localizedDescription)
            context.log.warning("sync failed", metadata: ["error": "\(error.localizedDescription)"])
            throw CommandError(error.localizedDescription, code: error.isBadInput ? ExitCodes.usage : ExitCodes.failure)
        } catch {
            try? store.recordSync(error: CommandError(error).message)
            throw error
        }
        context.log.info(
            "synced",
            metadata: [
                "sent-subscriptions": "\(report.sentSubscriptions)", "sent-actions": "\(report.sentActions)",
                "subscribed": "\(report.subscribed.count)", "unsubscribed": "\(report.unsubscribed.count)",
                "positions": "\(report.plays.positions)", "played": "\(report.plays.played)", "parked": "\(report.parked.count)",
            ])
        return report
    }

    /// `text` as an http(s) feed URL (`feed://`, `itpc://`, `pcast://` and `podcast://` are http), or nil.
    static func webFeed(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty, !trimmed.contains(where: { $0.isNewline || $0 == "\0" })
        else { return nil }
        switch scheme {
        case "http", "https": return trimmed
        case "feed", "itpc", "pcast", "podcast": return "http" + trimmed.dropFirst(scheme.count)
        default: return nil
        }
    }

    // MARK: - Push

    private func push(_ server: any SyncServer, report: inout Report) async throws {
        let store = context.store
        let pending = try store.pendingSyncChanges()
        let subscriptions = pending.filter { $0.kind != .action }
        if !subscriptions.isEmpty {
            let add = subscriptions.filter { $0.kind == .subscribe }.map(\.url)
            let remove = subscriptions.filter { $0.kind == .unsubscribe }.map(\.url)
            let result = try await server.upload(add: add, remove: remove)
            try store.removeSyncChanges(subscriptions.map(\.id))
            try store.applyUpdatedURLs(result.updateURLs)
            report.sentSubscriptions = subscriptions.count
        }
        let actions = pending.filter { $0.kind == .action && $0.action != nil }
        for start in stride(from: 0, to: actions.count, by: Self.batchSize) {
            try await send(Array(actions[start..<min(actions.count, start + Self.batchSize)]), to: server, report: &report)
        }
    }

    /// Sends `batch`; a refused batch is split to find the one action the server will not take.
    private func send(_ batch: [QueueStore.SyncChange], to server: any SyncServer, report: inout Report) async throws {
        guard !batch.isEmpty else { return }
        do {
            let result = try await server.upload(actions: batch.compactMap(\.action))
            try context.store.removeSyncChanges(batch.map(\.id))
            try context.store.applyUpdatedURLs(result.updateURLs)
            report.sentActions += batch.count
        } catch SyncError.status(let code, let call, let detail) where (400..<500).contains(code) && code != 401 && code != 403 && code != 429 {
            guard batch.count > 1 else {
                let change = batch[0]
                let reason = "\(code): \(detail)"
                try context.store.parkSyncChange(change.id, reason: reason)
                context.log.warning(
                    "sync: the server refused an action", metadata: ["episode": "\(change.action?.episode ?? "")", "reason": "\(reason)", "call": "\(call)"])
                report.parked.append(
                    "\(change.action?.action.rawValue ?? "action") of \(SafeText.clean(change.action?.episode ?? "")) (\(SafeText.clean(reason)))")
                return
            }
            let half = batch.count / 2
            try await send(Array(batch[..<half]), to: server, report: &report)
            try await send(Array(batch[half...]), to: server, report: &report)
        }
    }

    // MARK: - Pull

    private func pull(_ server: any SyncServer, account: QueueStore.SyncAccount, report: inout Report) async throws {
        let store = context.store
        var adds: [String] = []
        var removes: [String] = []
        // A second back: servers count in whole seconds and answer with changes after the time given,
        // so a change in the very second of the last pull would be missed. Seen twice, it changes nothing.
        let delta = try await server.subscriptions(since: max(0, account.subscriptionsSince - 1))
        if account.subscriptionsSince == 0, let every = try await server.allSubscriptions() {
            adds += every
        }
        adds += delta.add
        removes += delta.remove
        // A feed both added and removed in one answer (two devices disagreeing) is left as podq has it.
        let both = Set(delta.add.map(SyncURL.key)).intersection(delta.remove.map(SyncURL.key))
        adds.removeAll { both.contains(SyncURL.key($0)) }
        removes.removeAll { both.contains(SyncURL.key($0)) }
        let removed = Set(removes.map(SyncURL.key))
        // Only web feeds: a server's list is the network's text, and `podq add` would also read a
        // local file or a folder's path (`/etc/passwd`, `file:…`). Podcast apps' schemes become http.
        var refused: [String] = []
        adds = adds.compactMap { url in
            guard let web = Self.webFeed(url) else {
                refused.append(SafeText.clean(url))
                return nil
            }
            return web
        }
        if !refused.isEmpty {
            report.subscribeFailed.append("\(Report.count(refused.count, "listed feed")), not http(s): \(refused.prefix(3).joined(separator: ", "))")
            context.log.warning("sync: the server listed feeds that are not http(s); left out", metadata: ["count": "\(refused.count)"])
        }
        var seen = Set<String>()
        let refresh = FeedRefresh(context: context, transport: transport)
        for url in adds where !removed.contains(SyncURL.key(url)) && seen.insert(SyncURL.key(url)).inserted {
            guard try store.podcast(syncURL: url) == nil else { continue }
            do {
                // As `podq import`: a feed that cannot be read now is subscribed with its error (refresh tries again).
                let outcome = try await refresh.subscribe(url, autoQueue: false, fallbackTitle: url, keepOnFailure: true, announce: false)
                let subscribed = try outcome.podcast ?? store.podcast(syncURL: url)
                if let podcast = subscribed {
                    if SyncURL.key(podcast.url) != SyncURL.key(url) { try store.setSyncURL(podcast: podcast.id!, url: url) }
                    report.subscribed.append(SafeText.clean(podcast.title))
                }
                if outcome.failed { report.subscribeFailed.append("\(SafeText.clean(url)) (\(outcome.line))") }
            } catch {
                // Kept for the next pull: the server still lists it, and `--full` asks again.
                report.subscribeFailed.append("\(SafeText.clean(url)) (\(CommandError(error).message))")
            }
        }
        for url in Set(removes) {
            guard let podcast = try store.podcast(syncURL: url) else { continue }
            try store.removePodcast(id: podcast.id!, announce: false)
            report.unsubscribed.append(SafeText.clean(podcast.title))
        }
        // A feed that could not be subscribed at all is asked for again next time: the time stays.
        var missing = false
        for url in adds where !removed.contains(SyncURL.key(url)) {
            if try store.podcast(syncURL: url) == nil { missing = true }
        }
        let subscriptionsSince = missing ? account.subscriptionsSince : delta.timestamp
        try store.recordSync(subscriptionsSince: subscriptionsSince, error: nil)
        let since = max(0, account.actionsSince - Self.overlap)
        let (actions, timestamp) = try await server.actions(since: since)
        // This device's own actions come back too (on gpodder, marked with its id): nothing to apply.
        report.plays = try store.applyPlays(actions.filter { $0.device == nil || $0.device != account.device })
        try store.recordSync(pulled: true, actionsSince: max(timestamp, account.actionsSince), error: nil)
    }
}
