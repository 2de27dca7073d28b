import CPodqSystem
import Dispatch
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqSession
import PodqUI
import Synchronization

/// The front end of `podq download`: a ``QueueSession`` shown by a ``DownloadReporter``. Adds the
/// URLs, runs the queue until nothing is runnable, says the summary, and returns the exit code.
final class DownloadRunner: Sendable {
    let context: QueueContext
    let overrides: QueueSession.Overrides
    /// One JSON object per event (`--json`).
    let json: Bool
    /// Where the run's lines go; made before the context, so that a wait while opening it is said.
    let reporter: DownloadReporter

    init(
        context: QueueContext, jobs: Int? = nil, perHost: Int? = nil, connections: Int? = nil, stallTimeout: Double? = nil, rateLimit: Int?? = nil,
        json: Bool = false, reporter: DownloadReporter? = nil
    ) {
        self.context = context
        self.json = json
        self.reporter = reporter ?? Self.reporter(json: json)
        overrides = QueueSession.Overrides(jobs: jobs, perHost: perHost, connections: connections, stallTimeout: stallTimeout, rateLimit: rateLimit)
    }

    /// Adds `items`, then runs the queue until nothing is runnable; returns 0, 1, 3 or 130.
    func run(adding items: [DownloadItem]) async throws -> Int32 {
        let reporter = self.reporter
        let started = DispatchTime.now().uptimeNanoseconds
        let context = self.context
        let ran = Mutex<QueueRunner.Summary?>(nil)
        let frontEnd = QueueSession.FrontEnd(
            onOperation: { reporter.track($0) }, onEvent: { reporter.report($0) }, note: { reporter.note($0) }, cleanup: .afterRun,
            closed: {
                // The summary after the hooks' lines, before what cleanup deletes.
                guard let summary = ran.withLock({ $0 }) else { return }
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
                let line = Self.summaryLine(summary, seconds: seconds)
                reporter.end(line, summary: summary, seconds: seconds)
                context.log.info("queue run ended", metadata: ["summary": "\(line)"])
            })
        // The sync first, before the queue's lock is taken: adopting an account's feeds may take long,
        // and another podq (the TUI, a cron run) must not wait for it.
        if context.settings.syncAuto {
            try await QueueSession.beside(context: context, note: { reporter.note($0) }) { await SyncFirst.run($0, say: { reporter.note($0) }) }
        }
        let outcome = try await QueueSession.with(context: context, overrides: overrides, frontEnd: frontEnd) { session in
            if !items.isEmpty { _ = try await session.perform(.add(items)) }
            reporter.begin()
            do {
                let summary = try await session.run()
                ran.withLock { $0 = summary }
                return summary
            } catch {
                reporter.end("stopped: \(ErrorText.describe(error))")
                context.log.error("queue run stopped", metadata: ["reason": "\(ErrorText.describe(error))"])
                throw CommandError(error)
            }
        }
        guard let summary = outcome else { return ExitCodes.locked }
        if summary.interrupted { return ExitCodes.interrupted }
        return summary.failed > 0 || summary.unverified > 0 || summary.diskFull ? ExitCodes.failure : ExitCodes.success
    }

    /// The reporter for `--json` or not, live on a terminal.
    static func reporter(json: Bool) -> DownloadReporter {
        DownloadReporter(mode: json ? .json : isatty(STDOUT_FILENO) == 1 ? .live : .lines)
    }

    /// What `podq download` says at its end.
    static func summaryLine(_ summary: QueueRunner.Summary, seconds: Double) -> String {
        var line = "\(summary.completed) completed, \(summary.failed) failed" + String(printf: " in %.1f s", seconds)
        if summary.unverified > 0 { line += "; \(summary.unverified) unverified (differ from their published hash; see podq queue --json)" }
        if summary.completed == 0 && summary.failed == 0 && !summary.interrupted && !summary.diskFull {
            line = "nothing to download: the queue has no waiting downloads (add some with `podq queue add` or give URLs)"
        }
        if summary.interrupted { line = "interrupted: " + line + "; the queue and the partial files are kept, run podq download to resume" }
        if summary.diskFull { line = "disk full: " + line + "; free some space, then `podq queue resume`" }
        return line
    }
}
