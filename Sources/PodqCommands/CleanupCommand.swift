import ArgumentParser
import Foundation
import PodqCore
import PodqUI

/// `podq cleanup [--dry-run]`: applies the config's cleanup rules now.
struct CleanupCommand: ParsableCommand {
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

    func run() throws {
        let context = try QueueContext.open(global)
        let rules: [Int64: PodcastSettings]
        do { rules = try context.store.podcastRules() } catch { throw CommandError(error) }
        guard context.settings.cleanup.isActive(with: rules) else {
            Console.out("No cleanup rule is set: add `cleanup-days = 30` or `keep-episodes = 5` to \(context.paths.configFile).")
            return
        }
        try CleanupRun(context: context).run(dryRun: dryRun, listing: true)
    }
}

/// A cleanup with its lines for the user and the log; shared by `cleanup`, `refresh` and `download`.
struct CleanupRun {
    let context: QueueContext

    /// Runs the config's rules (nothing when none is set) and prints what was removed (`quiet`: only
    /// logs it). Returns the report.
    @discardableResult
    func run(dryRun: Bool = false, listing: Bool = false, quiet: Bool = false) throws -> Cleanup.Report {
        let report: Cleanup.Report
        do {
            report = try Cleanup.run(store: context.store, downloadFolder: context.paths.downloadFolder,
                                     policy: context.settings.cleanup, dryRun: dryRun)
        } catch {
            throw CommandError(error)
        }
        if !dryRun {
            for row in report.removed {
                context.log.info("cleanup deleted", metadata: ["id": "\(row.id ?? 0)", "file": "\(row.destination)"])
            }
        }
        if quiet { return report }
        if listing {
            for row in report.removed { Console.out("\(dryRun ? "would delete" : "deleted") #\(row.id ?? 0) \(row.destination)") }
        }
        for path in report.keptOutside {
            Console.error("kept \(path): it is outside the download folder \(context.paths.downloadFolder)")
        }
        if !report.removed.isEmpty || listing {
            let size = Format.bytes(report.bytes)
            Console.out("cleanup: \(dryRun ? "would delete" : "deleted") \(report.removed.count) file\(report.removed.count == 1 ? "" : "s") (\(size))")
        }
        return report
    }
}
