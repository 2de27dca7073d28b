import FoundationEssentials
import Glibc
import Logging
import PodqBase
import PodqCore

/// The push: every waiting change, and nothing leaves the queue until the server's receipt says it
/// took it (docs/SYNC.md, "Nothing queued is lost").
///
/// Subscription changes go first, then episode actions, each in batches of at most ``SyncRun/batchSize``.
/// A batch the server refuses as a request (400, 413, 422) is split in halves until the one change it
/// will not take is found; that one is set aside with the server's reason and never blocks the others.
/// A batch the server fails (a 5xx, a 404 page, 429, no receipt) stays queued for the next sync and the
/// push goes on with the next batch; after two such batches in a row the server is down: the rest waits.
extension SyncRun {
    /// A change a server cannot take at all (a feed that is a file's path): set aside without sending it.
    package static let notOnTheWeb = "not a web feed (a file's path): a sync server takes http(s) feeds only"

    package func push(_ server: any SyncServer, report: inout Report) async throws {
        let store = context.store
        let pending = try await store.sync.pendingSyncChanges()
        var subscriptions: [SyncStore.SyncChange] = []
        for change in pending where change.kind != .action {
            if SyncURL.webFeed(change.url) == nil {
                try await setAside(change, reason: Self.notOnTheWeb, report: &report)
            } else {
                subscriptions.append(change)
            }
        }
        let actions = pending.filter { $0.kind == .action && $0.action != nil }
        var failedInARow = 0
        for batch in Self.batches(subscriptions) + Self.batches(actions) {
            guard failedInARow < 2 else { break }
            do {
                try await send(batch, to: server, report: &report)
                failedInARow = 0
            } catch let error as SyncError where !Self.stopsTheSync(error) {
                failedInARow += 1
                if !report.failures.contains(ErrorText.describe(error)) { report.failures.append(ErrorText.describe(error)) }
                context.log.warning("sync: a batch was not taken; it waits", metadata: ["count": "\(batch.count)", "error": "\(ErrorText.describe(error))"])
            }
        }
        // What of this push is still queued (not taken, not set aside): it waits for the next sync.
        let still = await Set(try store.sync.pendingSyncChanges().map(\.id))
        report.leftPending = pending.filter { still.contains($0.id) }.count
    }

    /// `changes` in batches of at most ``batchSize``.
    package static func batches(_ changes: [SyncStore.SyncChange]) -> [[SyncStore.SyncChange]] {
        stride(from: 0, to: changes.count, by: batchSize).map { Array(changes[$0..<min(changes.count, $0 + batchSize)]) }
    }

    /// True for a status that refuses the request's content (one change in it), not the server's fault:
    /// splitting finds the change.
    package static func refusesTheContent(_ status: Int) -> Bool { [400, 413, 422].contains(status) }

    /// Sends `batch` (all subscription changes or all actions); a batch refused for its content is split
    /// to find the one change the server will not take. Server faults are thrown to the push.
    private func send(_ batch: [SyncStore.SyncChange], to server: any SyncServer, report: inout Report) async throws {
        guard !batch.isEmpty else { return }
        do {
            let result: UploadResult
            if batch[0].kind == .action {
                result = try await server.upload(actions: batch.compactMap(\.action))
            } else {
                let add = batch.filter { $0.kind == .subscribe }.map(\.url)
                let remove = batch.filter { $0.kind == .unsubscribe }.map(\.url)
                result = try await server.upload(add: add, remove: remove)
            }
            try await context.store.sync.removeSyncChanges(batch.map(\.id))
            try await context.store.sync.applyUpdatedURLs(result.updateURLs)
            if batch[0].kind == .action { report.sentActions += batch.count } else { report.sentSubscriptions += batch.count }
        } catch SyncError.status(let code, _, let detail) where Self.refusesTheContent(code) {
            guard batch.count > 1 else {
                try await setAside(batch[0], reason: "\(code): \(detail)", report: &report)
                return
            }
            let half = batch.count / 2
            try await send(Array(batch[..<half]), to: server, report: &report)
            try await send(Array(batch[half...]), to: server, report: &report)
        }
    }

    private func setAside(_ change: SyncStore.SyncChange, reason: String, report: inout Report) async throws {
        try await context.store.sync.parkSyncChange(change.id, reason: reason)
        let what = Self.describe(change)
        context.log.warning("sync: the server refused a change; set aside", metadata: ["change": "\(what)", "reason": "\(reason)"])
        report.parked.append("\(what) (\(SafeText.clean(reason)))")
    }

    /// A change in words: "play of https://…/e1.mp3", "subscribe to https://…/feed.xml".
    package static func describe(_ change: SyncStore.SyncChange) -> String {
        switch change.kind {
        case .subscribe: "subscribe to \(SafeText.clean(change.url))"
        case .unsubscribe: "unsubscribe from \(SafeText.clean(change.url))"
        case .action: "\(change.action?.action.rawValue ?? "action") of \(SafeText.clean(change.action?.episode ?? ""))"
        }
    }
}
