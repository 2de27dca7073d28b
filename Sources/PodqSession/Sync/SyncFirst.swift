import FoundationEssentials
import Glibc
import PodqCore

/// `sync = auto`: `podq refresh` and `podq download` sync first when podq is logged in. The sync's line
/// is said; a sync that fails is said on standard error and changes nothing else (the command goes on,
/// its exit code its own; the changes wait for the next sync).
package enum SyncFirst {
    /// Syncs through `session` when `sync = auto` and there is an account.
    /// - Parameter say: where the sync's line goes (a `--json` run's reporter writes it as a `note` object).
    package static func run(_ session: QueueSession, say: (String) -> Void = { Console.out($0) }) async {
        guard session.settings.syncAuto else { return }
        do {
            if case .synced(let report) = try await session.perform(.sync(full: false, asked: false)) { say(report.line) }
        } catch {
            Console.error("podq: sync first: \(CommandError(error).message)")
        }
    }
}
