import CPodqSystem
import Dispatch
import Foundation
import Synchronization
import PodqCore
import PodqUI

/// The frontend of `podq download`: takes the lock, reconciles the store with the disk, adds the
/// URLs, runs the queue with a reporter, handles SIGINT, SIGTERM and SIGHUP, and returns the exit code.
final class DownloadRunner: Sendable {
    let context: QueueContext
    let jobs: Int?
    let perHost: Int?
    let connections: Int?
    let stallTimeout: Double?
    /// `--limit-rate`: .some(nil) lifts the config's limit.
    let rateLimit: Int??

    init(context: QueueContext, jobs: Int? = nil, perHost: Int? = nil, connections: Int? = nil, stallTimeout: Double? = nil, rateLimit: Int?? = nil) {
        self.rateLimit = rateLimit
        self.context = context
        self.jobs = jobs
        self.perHost = perHost
        self.connections = connections
        self.stallTimeout = stallTimeout
    }

    /// Adds `items`, then runs the queue until nothing is runnable; returns 0, 1, 3 or 130.
    func run(adding items: [DownloadItem]) async throws -> Int32 {
        // Signals are caught from the start: a SIGTERM while the lock is taken or the queue read still
        // ends the run with 130 and nothing lost, once the runner exists to stop.
        let stopRunner = Mutex<(@Sendable () async -> Void)?>(nil)
        let interrupt = InterruptHandler { await stopRunner.withLock { $0 }?() }
        defer { interrupt.disarm() }
        guard let lock = try context.takeQueue() else { return ExitCodes.locked }
        defer { lock.release() }
        try context.store.add(QueuePlanning(context: context).downloads(for: items).new)

        var settings = context.settings
        if let jobs { settings.simultaneousDownloads = jobs }
        if let perHost { settings.perHostDownloads = perHost }
        if let connections { settings.connectionsPerDownload = connections }
        if let stallTimeout { settings.stallTimeout = stallTimeout }
        if let rateLimit { settings.rateLimit = rateLimit }
        context.log.info("queue run started", metadata: [
            "jobs": "\(settings.simultaneousDownloads)", "per-host": "\(settings.perHostDownloads)", "connections": "\(settings.connectionsPerDownload)",
            "rate-limit": "\(settings.rateLimit.map(String.init) ?? "none")", "folder": "\(context.paths.downloadFolder)",
        ])
        let reporter = DownloadReporter(live: isatty(STDOUT_FILENO) == 1)
        let started = DispatchTime.now().uptimeNanoseconds
        // No limit: no limiter at all, so no lock per chunk.
        let summary = try await HTTPSession.with(settings: settings, logger: context.log,
                                                 rateLimiter: settings.rateLimit.map { RateLimiter(bytesPerSecond: $0) }) { transport in
            let logins = PodcastLogin.Book(context: context)
            let hooks = CompletionHooks(context: context, settings: settings)
            let playlist = RunPlaylist(context: context)
            let sidecars = EpisodeSidecars(context: context, transport: transport, logins: logins)
            let runner = QueueRunner(store: context.store, settings: settings, transport: transport, logger: context.log,
                                     observers: .init(onOperation: { reporter.track($0) }, onEvent: { event in
                                         reporter.report(event)
                                         playlist?.handle(event)
                                         // The sidecars first, so that a hook finds them beside the file.
                                         if let sidecars { sidecars.handle(event) { hooks?.handle(event) } } else { hooks?.handle(event) }
                                     }),
                                     access: { await logins.access(for: $0) })
            stopRunner.withLock { $0 = { await runner.stop() } }
            if interrupt.fired { await runner.stop() }
            reporter.begin()
            let log = context.log
            let lockWatch = LockWaitNotice(context.store.lockWait).watch { line in
                reporter.note(line)
                log.notice("\(line)")
            }
            defer { lockWatch.cancel() }
            do {
                let summary = try await runner.run()
                await sidecars?.finish()
                if let written = await playlist?.write() { reporter.note("playlist: \(written)") }
                // A cron job's hooks finish before podq does (each within its timeout).
                if let line = hooks?.waitingLine { reporter.note(line) }
                await hooks?.finish()
                return summary
            } catch {
                reporter.end("stopped: \(error.localizedDescription)")
                context.log.error("queue run stopped", metadata: ["reason": "\(error.localizedDescription)"])
                throw CommandError(error)
            }
        }

        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        var line = "\(summary.completed) completed, \(summary.failed) failed" + String(format: " in %.1f s", seconds)
        if summary.unverified > 0 { line += "; \(summary.unverified) unverified (differ from their published hash; see podq queue --json)" }
        if summary.completed == 0 && summary.failed == 0 && !summary.interrupted && !summary.diskFull {
            line = "nothing to download: the queue has no waiting downloads (add some with `podq queue add` or give URLs)"
        }
        if summary.interrupted { line = "interrupted: " + line + "; the queue and the partial files are kept, run podq download to resume" }
        if summary.diskFull { line = "disk full: " + line + "; free some space, then `podq queue resume`" }
        reporter.end(line)
        context.log.info("queue run ended", metadata: ["summary": "\(line)"])
        if !summary.interrupted { try CleanupRun(context: context).run() }

        if summary.interrupted { return ExitCodes.interrupted }
        return summary.failed > 0 || summary.unverified > 0 || summary.diskFull ? ExitCodes.failure : ExitCodes.success
    }
}

/// Turns SIGINT, SIGTERM and SIGHUP (a closed terminal, a dropped ssh session) into one call of
/// `action` (stop everything, keep the partials); a second signal exits at once. SIGHUP is left
/// alone when it was ignored at the start (`nohup podq download`).
final class InterruptHandler: Sendable {
    private let sources: Mutex<[DispatchSourceSignal]>
    private let signalled = Mutex(false)
    /// SIGHUP is handled (it was not ignored at the start).
    private let hangUp: Bool

    init(action: @escaping @Sendable () async -> Void) {
        var sources: [DispatchSourceSignal] = []
        let hangUp = podq_signal_is_ignored(SIGHUP) == 1 ? [] : [SIGHUP]
        self.hangUp = !hangUp.isEmpty
        for sig in [SIGINT, SIGTERM] + hangUp {
            signal(sig, SIG_IGN)
            sources.append(DispatchSource.makeSignalSource(signal: sig, queue: .global()))
        }
        self.sources = Mutex(sources)
        self.sources.withLock { sources in
            for source in sources {
                source.setEventHandler { [weak self] in
                    guard let self else { return }
                    let first = self.signalled.withLock { fired in
                        defer { fired = true }
                        return !fired
                    }
                    if first {
                        Task { await action() }
                    } else {
                        exit(ExitCodes.interrupted)  // a second Ctrl-C: stop now; the partials are on disk already
                    }
                }
                source.resume()
            }
        }
    }

    /// True once a signal arrived.
    var fired: Bool { signalled.withLock { $0 } }

    /// Stops listening and restores the default handlers.
    func disarm() {
        sources.withLock { $0.forEach { $0.cancel() } }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        if hangUp { signal(SIGHUP, SIG_DFL) }
    }
}
