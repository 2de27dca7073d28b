import FoundationEssentials
import Glibc
import Logging
import PodqBase
import PodqCore
import PodqHTTP

/// One sync with the account's server: push, then pull (docs/SYNC.md).
///
/// Push (SyncRun+Push): the waiting subscription changes, then the episode actions in batches; nothing
/// leaves the queue until the server's receipt says it took it. Pull (SyncRun+Pull): the subscription
/// changes and every device's plays since the last pull. The pull runs even when the push failed; a
/// refused login, a redirect elsewhere or a network that fails stop both.
package struct SyncRun {
    package let context: QueueContext
    package let transport: any HTTPTransport

    package init(context: QueueContext, transport: any HTTPTransport) {
        self.context = context
        self.transport = transport
    }

    /// The most changes in one upload.
    package static let batchSize = 30
    /// How far before the last pull's time the next one asks from.
    package static let overlap: Int64 = 3 * 86_400

    /// The server of `account`, with its password.
    package static func server(
        for account: SyncStore.SyncAccount, password: String, transport: any HTTPTransport, logger: Logger = .disabled
    ) throws(CommandError) -> any SyncServer {
        guard let base = URL(string: account.server) else {
            throw CommandError("the sync server's URL '\(account.server)' is not a URL.", code: ExitCodes.usage)
        }
        let connection = SyncConnection(base: base, user: account.user, password: password, transport: transport, logger: logger)
        switch account.flavour {
        case .gpodder: return GPodderServer(connection: connection, device: account.device ?? Self.deviceID())
        case .nextcloud: return NextcloudServer(connection: connection)
        }
    }

    /// This machine's device id: `podq-<host name>`, in the characters the API allows.
    package static func deviceID() -> String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "host"
        let cleaned = host.lowercased().map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "-" }
        return "podq-" + String(cleaned.prefix(40))
    }

    /// True for a failure after which nothing more is tried now: the login, the origin, the network.
    package static func stopsTheSync(_ error: SyncError) -> Bool {
        switch error {
        case .refusedLogin, .redirectedElsewhere, .network, .notLoggedIn, .badInput: true
        case .status, .badAnswer, .notTaken, .notASyncServer: false
        }
    }

    /// Pushes, then pulls. `full` asks the server for everything again, and sends set-aside changes once more.
    /// - Parameter given: the server to use in place of the account's (a unit test's).
    package func run(full: Bool = false, using given: (any SyncServer)? = nil) async throws -> Report {
        let store = context.store
        guard let account = try await store.sync.syncAccount() else { throw CommandError(ErrorText.describe(SyncError.notLoggedIn), code: ExitCodes.usage) }
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
            server = try Self.server(
                for: account, password: try await SyncCredentials.password(for: account), transport: transport, logger: context.log)
        }
        var report = Report()
        if full {
            try await store.sync.resetSyncTimes()
            report.retried = try await store.sync.retrySyncChanges()
        }
        do {
            do {
                try await push(server, report: &report)
                try await store.sync.recordSync(pushed: true, error: nil)
            } catch let error as SyncError where !Self.stopsTheSync(error) {
                // The changes stay queued; what the other devices did still arrives.
                report.failures.append(ErrorText.describe(error))
            }
            do {
                try await pull(server, account: try store.sync.syncAccount() ?? account, report: &report)
            } catch let error as SyncError where !Self.stopsTheSync(error) {
                report.failures.append(ErrorText.describe(error))
            }
        } catch let error as SyncError {
            let said = (report.failures + [ErrorText.describe(error)]).joined(separator: "\n")
            try? await store.sync.recordSync(error: said)
            context.log.warning("sync failed", metadata: ["error": "\(said)"])
            throw CommandError(said, code: error.isBadInput ? ExitCodes.usage : ExitCodes.failure)
        } catch {
            try? await store.sync.recordSync(error: CommandError(error).message)
            throw error
        }
        report.setAside = try await store.sync.syncChangeCounts().parked
        try await store.sync.recordSync(error: report.failures.isEmpty ? nil : report.failures.joined(separator: "\n"))
        context.log.log(
            level: report.failures.isEmpty ? .info : .warning,
            report.failures.isEmpty ? "synced" : "synced in part",
            metadata: [
                "sent-subscriptions": "\(report.sentSubscriptions)", "sent-actions": "\(report.sentActions)",
                "subscribed": "\(report.subscribed.count)", "unsubscribed": "\(report.unsubscribed.count)",
                "positions": "\(report.plays.positions)", "played": "\(report.plays.played)", "parked": "\(report.parked.count)",
                "left-pending": "\(report.leftPending)", "skipped-actions": "\(report.skipped.kinds.values.reduce(0, +) + report.skipped.malformed)",
                "failures": "\(report.failures.joined(separator: " | "))",
            ])
        return report
    }
}
