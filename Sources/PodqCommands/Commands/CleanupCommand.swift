import ArgumentParser
import FoundationEssentials
import Glibc
import PodqCore
import PodqSession
import PodqUI

/// `podq cleanup [--dry-run]`: applies the config's cleanup rules now.
struct CleanupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cleanup",
        abstract: "Delete the files of old feed episodes, by the config's cleanup-days and keep-episodes.",
        discussion: """
            Only completed downloads of feed episodes whose files are inside the download folder are \
            removed (the file and its queue row); URLs queued by hand and unfinished downloads are never \
            touched. `podq refresh` and `podq download` run the same cleanup when a rule is set.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "List what would be deleted, delete nothing.")
    var dryRun = false

    func run() async throws {
        let context = try QueueContext.open(global)
        let rules: [Int64: PodcastSettings]
        do { rules = try await context.store.library.podcastRules() } catch { throw CommandError(error) }
        guard context.settings.cleanup.isActive(with: rules) else {
            Console.out("No cleanup rule is set: add `cleanup-days = 30` or `keep-episodes = 5` to \(context.paths.configFile).")
            return
        }
        try await CleanupRun(context: context).run(dryRun: dryRun, listing: true, automatic: false)
    }
}
