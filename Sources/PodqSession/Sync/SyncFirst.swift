import Foundation
import PodqCore

/// `sync = auto`: `podq refresh` and `podq download` sync first when podq is logged in. The sync's line
/// is said; a sync that fails is said on standard error and changes nothing else (the command goes on,
/// its exit code its own; the changes wait for the next sync).
package enum SyncFirst {
    /// - Parameter say: where the sync's line goes (a `--json` run's reporter writes it as a `note` object).
    package static func run(context: QueueContext, say: (String) -> Void = { Console.out($0) }, _ sync: () async throws -> String?) async {
        guard context.settings.syncAuto, (try? context.store.syncAccount()) != nil else { return }
        do {
            if let line = try await sync() { say(line) }
        } catch {
            Console.error("podq: sync first: \(CommandError(error).message)")
        }
    }
}
