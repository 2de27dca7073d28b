import FoundationEssentials
import Glibc
import PodqBase
import PodqCore

/// A cleanup with its lines for the user and the log; shared by `cleanup`, `refresh` and `download`.
package struct CleanupRun {
    package let context: QueueContext

    package init(context: QueueContext) { self.context = context }

    /// Where the rules the automatic cleanup last applied are kept (``Cleanup/signature(policy:rules:)``).
    private var appliedPath: String { LexicalPath.join(context.paths.home, "cleanup-rules") }

    /// Runs the config's rules (nothing when none is set) and prints what was removed (`quiet`: only
    /// logs it) through `say` (a `--json` run's reporter writes it as a `note` object). Returns the report.
    ///
    /// `automatic` (after `podq download`, `podq refresh`, in the TUI): when the rules changed since the
    /// last automatic cleanup (a config edit, `podq set … keep=`), nothing is deleted this time; what
    /// they would delete is said, with the commands that list and delete it. The next run applies them.
    @discardableResult
    /// - Parameter removingRows: false in a session: it removes the rows of what was deleted through
    ///   its runner.
    package func run(
        dryRun: Bool = false, listing: Bool = false, quiet: Bool = false, automatic: Bool = true, removingRows: Bool = true,
        say: (String) -> Void = { Console.out($0) }
    ) async throws -> Cleanup.Report {
        let report: Cleanup.Report
        var dryRun = dryRun
        var changed = false
        do {
            let signature = Cleanup.signature(policy: context.settings.cleanup, rules: try await context.store.library.podcastRules())
            let applied = try? String(contentsOfFile: appliedPath, encoding: .utf8)
            if automatic && !dryRun && applied != signature {
                changed = true
                dryRun = true
            }
            report = try await Cleanup.run(
                store: context.store, downloadFolder: context.paths.downloadFolder,
                policy: context.settings.cleanup, dryRun: dryRun, removingRows: removingRows)
            if !(listing && dryRun) || changed { try? signature.write(toFile: appliedPath, atomically: true, encoding: .utf8) }
        } catch {
            throw CommandError(error)
        }
        if changed {
            if !report.removed.isEmpty {
                let line =
                    "cleanup: the rules changed (the config's cleanup-days, keep-episodes or a podcast's keep, size-budget): "
                    + "they would delete \(report.removed.count) played episode file\(report.removed.count == 1 ? "" : "s") (\(Format.bytes(report.bytes))). "
                    + "Nothing was deleted this time: `podq cleanup --dry-run` lists them, `podq cleanup` deletes them now, or the next run will."
                context.log.notice("cleanup rules changed; nothing deleted this time", metadata: ["would-delete": "\(report.removed.count)"])
                if !quiet { say(line) }
            }
            var held = Cleanup.Report()
            held.heldBack = report.removed.count
            return held
        }
        if !dryRun {
            for row in report.removed {
                context.log.info("cleanup deleted", metadata: ["id": "\(row.id)", "file": "\(row.destination)"])
            }
        }
        if quiet { return report }
        if listing {
            for row in report.removed { say("\(dryRun ? "would delete" : "deleted") \(ItemKind.download.label(row.id)) \(row.destination)") }
        }
        for path in report.keptNotPodqs {
            Console.error(
                "kept \(SafeText.clean(path)): it is not the file podq downloaded there (replaced or changed since); delete it yourself if you want it gone")
        }
        for path in report.keptLinks {
            Console.error("kept \(SafeText.clean(path)): it is a symbolic link, not the file podq downloaded there; podq deletes no link (remove it yourself)")
        }
        for path in report.keptOutside {
            Console.error("kept \(path): it is outside the download folder \(context.paths.downloadFolder)")
        }
        if !report.removed.isEmpty || listing {
            let size = Format.bytes(report.bytes)
            var line = "cleanup: \(dryRun ? "would delete" : "deleted") \(report.removed.count) file\(report.removed.count == 1 ? "" : "s") (\(size))"
            if report.keptUnplayed > 0 && listing {
                line += "; \(report.keptUnplayed) not yet played \(report.keptUnplayed == 1 ? "is" : "are") kept (cleanup-unplayed = true deletes them too)"
            }
            say(line)
        }
        return report
    }
}
