import FoundationEssentials
import Glibc
import PodqCore
import PodqHTTP
import Synchronization

/// One run of the queue, whichever front end shows it (`podq tui`, `podq download`, `podq demo`; sync
/// next): the one place the machine is assembled and taken down (issue 31).
///
/// ``with(context:overrides:frontEnd:isolation:_:)`` catches SIGINT, SIGTERM and SIGHUP from its start,
/// takes the home's lock and reconciles the store with the disk, applies the command line's settings,
/// makes the HTTP client and the speed limiter, the ``QueueRunner`` and the completion chain (sidecars,
/// then the `on-complete` hook, and the playlist), watches for another program's database lock, and
/// runs cleanup where the front end asks; then it hands the session to the front end, and when that
/// returns or throws it closes the run in one order: the runner stopped (partials kept), the sidecars
/// finished, the playlist written, the hooks awaited, the client shut down, the lock released. Front
/// ends only show: they get the runner's operations and events, and the session's lines through
/// ``FrontEnd``.
package final class QueueSession: Sendable {
    /// What the command line changes of the config for one run.
    package struct Overrides: Sendable {
        package var jobs: Int?
        package var perHost: Int?
        package var connections: Int?
        package var stallTimeout: Double?
        /// `--limit-rate`: .some(nil) lifts the config's limit.
        package var rateLimit: Int??
        /// The HTTP client, in place of the session's own (a unit test's `MemoryTransport`).
        package var transport: (any HTTPTransport)?

        package init(
            jobs: Int? = nil, perHost: Int? = nil, connections: Int? = nil, stallTimeout: Double? = nil, rateLimit: Int?? = nil,
            transport: (any HTTPTransport)? = nil
        ) {
            self.jobs = jobs
            self.perHost = perHost
            self.connections = connections
            self.stallTimeout = stallTimeout
            self.rateLimit = rateLimit
            self.transport = transport
        }

        /// `settings` with these changes.
        package func applied(to settings: Settings) -> Settings {
            var settings = settings
            if let jobs { settings.simultaneousDownloads = jobs }
            if let perHost { settings.perHostDownloads = perHost }
            if let connections { settings.connectionsPerDownload = connections }
            if let stallTimeout { settings.stallTimeout = stallTimeout }
            if let rateLimit { settings.rateLimit = rateLimit }
            return settings
        }
    }

    /// When cleanup (`keep`, `size-budget`) runs in a session.
    package enum CleanupTime: Sendable {
        /// In the background as the session opens, quietly, its report handed over (the TUI).
        case atStart(report: @Sendable (Cleanup.Report) -> Void)
        /// After the front end returned, unless a signal stopped the run; it prints what it deletes
        /// (`podq download`: a cron run's new episodes count before the oldest go).
        case afterRun
        /// Never (the demo in a temporary folder).
        case never
    }

    /// What a front end hands the session: where the runner's operations, events and rows go, where
    /// the session's own lines go, what a signal does, and when cleanup runs.
    package struct FrontEnd: Sendable {
        package var onOperation: @Sendable (DownloadOperation) -> Void = { _ in }
        package var onEvent: @Sendable (QueueRunner.Event) -> Void = { _ in }
        package var onSync: @Sendable ([DownloadRecord]) -> Void = { _ in }
        /// A line for the user: another program's lock waited for, the playlist written, hooks still
        /// running at the end.
        package var note: @Sendable (String) -> Void
        /// A signal arrived; nil: the session stops the runner (the front end's run then ends).
        package var onSignal: (@Sendable () -> Void)?
        /// The speed limit can change during the run (`<` and `>` in the TUI): a limiter is made even
        /// with no limit. Without, and with no limit, there is no limiter at all (no lock per chunk).
        package var adjustableRate = false
        package var cleanup: CleanupTime = .never
        /// Called once the run is closed (hooks awaited), before the cleanup after the run: where
        /// `podq download` says its summary.
        package var closed: (@Sendable () -> Void)?

        package init(
            onOperation: @escaping @Sendable (DownloadOperation) -> Void = { _ in }, onEvent: @escaping @Sendable (QueueRunner.Event) -> Void = { _ in },
            onSync: @escaping @Sendable ([DownloadRecord]) -> Void = { _ in }, note: @escaping @Sendable (String) -> Void,
            onSignal: (@Sendable () -> Void)? = nil, adjustableRate: Bool = false, cleanup: CleanupTime = .never, closed: (@Sendable () -> Void)? = nil
        ) {
            self.onOperation = onOperation
            self.onEvent = onEvent
            self.onSync = onSync
            self.note = note
            self.onSignal = onSignal
            self.adjustableRate = adjustableRate
            self.cleanup = cleanup
            self.closed = closed
        }
    }

    // The parts of the run are the session's own (internal to PodqSession): a front end reaches them
    // only through ``perform(_:)`` and the reads (QueueSession+Reads).
    let context: QueueContext
    /// The config with the command line's changes.
    package let settings: Settings
    /// The session's HTTP client: the downloads', the feeds' and the sidecars'.
    let transport: any HTTPTransport
    /// The speed limit the downloads share; nil when there is none and it cannot change.
    let rateLimiter: RateLimiter?
    let runner: QueueRunner
    /// Subscribing and refreshing, new rows through the runner.
    let feeds: FeedRefresh
    /// The config's `on-complete`, run for each finished download; awaited at the end.
    private let hooks: CompletionHooks?
    /// The run's M3U playlist (`playlist = true`), written at the end.
    private let playlist: RunPlaylist?
    /// Offline-complete episodes (`sidecars`), awaited at the end.
    private let sidecars: EpisodeSidecars?
    private let logins: PodcastLogin.Book
    private let frontEnd: FrontEnd
    /// Where the runner's own run is (``run(untilStopped:)``): the end stops a run that has not
    /// returned, and no other (stopping the runner tells the store to stop waiting for another
    /// program's lock, which a session beside the queue must not do to the command that follows).
    private let runState = Mutex(RunState.notStarted)
    private enum RunState { case notStarted, running, finished }

    private init(context: QueueContext, settings: Settings, transport: any HTTPTransport, rateLimiter: RateLimiter?, frontEnd: FrontEnd) {
        self.context = context
        self.settings = settings
        self.transport = transport
        self.rateLimiter = rateLimiter
        self.frontEnd = frontEnd
        let hooks = CompletionHooks(context: context, settings: settings)
        let playlist = RunPlaylist(context: context)
        let logins = PodcastLogin.Book(context: context)
        let sidecars = EpisodeSidecars(context: context, transport: transport, logins: logins)
        self.hooks = hooks
        self.playlist = playlist
        self.logins = logins
        self.sidecars = sidecars
        let runner = QueueRunner(
            store: context.store, settings: settings, transport: transport, logger: context.log,
            observers: .init(
                onOperation: frontEnd.onOperation,
                onEvent: { event in
                    frontEnd.onEvent(event)
                    playlist?.handle(event)
                    // The sidecars first, so that a hook finds them beside the file.
                    if let sidecars { sidecars.handle(event) { hooks?.handle(event) } } else { hooks?.handle(event) }
                },
                onSync: frontEnd.onSync),
            pacing: rateLimiter,
            access: { await logins.access(for: $0) })
        self.runner = runner
        feeds = FeedRefresh(context: context, transport: transport, writer: .runner(runner))
    }

    /// Opens a session on `context`'s queue, runs `body` with it, and closes it (the type's comment
    /// says in which order); returns nil, having said so, when another podq holds the queue.
    /// - Parameter isolation: where `body` runs: the caller's actor (the TUI's main actor), or none.
    package static func with<T>(
        context: QueueContext, overrides: Overrides = Overrides(), frontEnd: FrontEnd,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (QueueSession) async throws -> T
    ) async throws -> T? {
        // Signals are caught from the start: a SIGTERM while the lock is taken or the store reconciled
        // still ends the run with nothing lost, once the runner exists to stop.
        let current = Mutex<QueueSession?>(nil)
        let onSignal = frontEnd.onSignal
        let interrupt = InterruptHandler {
            if let onSignal { onSignal() } else { await current.withLock { $0 }?.stop() }
        }
        defer { interrupt.disarm() }
        guard let lock = try context.takeQueue() else { return nil }
        defer { lock.release() }
        let settings = overrides.applied(to: context.settings)
        let rateLimiter = settings.rateLimit != nil || frontEnd.adjustableRate ? RateLimiter(bytesPerSecond: settings.rateLimit) : nil
        context.log.info(
            "queue run started",
            metadata: [
                "jobs": "\(settings.simultaneousDownloads)", "per-host": "\(settings.perHostDownloads)", "connections": "\(settings.connectionsPerDownload)",
                "rate-limit": "\(settings.rateLimit.map(String.init) ?? "none")", "folder": "\(context.paths.downloadFolder)",
            ])
        // The run itself, on the session's own HTTP client or the one given.
        func running(_ transport: any HTTPTransport) async throws -> T {
            let session = QueueSession(context: context, settings: settings, transport: transport, rateLimiter: rateLimiter, frontEnd: frontEnd)
            current.withLock { $0 = session }
            if interrupt.fired && onSignal == nil { await session.stop() }
            let log = context.log
            let before = context.lockNotice.route { line in
                frontEnd.note(line)
                log.notice("\(line)")
            }
            defer {
                context.lockNotice.flush()
                context.lockNotice.route(to: before)
            }
            if case .atStart(let report) = frontEnd.cleanup {
                Task.detached(priority: .utility) {
                    if let cleaned = try? await session.cleanup(quiet: true) { report(cleaned) }
                }
            }
            return try await session.closing(body)
        }
        let result = try await onClient(overrides.transport, settings: settings, context: context) { try await running($0) }
        frontEnd.closed?()
        if case .afterRun = frontEnd.cleanup, !interrupt.fired, let session = current.withLock({ $0 }) {
            _ = try await session.cleanup(say: frontEnd.note)
        }
        return result
    }

    /// Opens a session beside whatever runs the queue (`podq sync`, `podq refresh`, the sync before
    /// `podq download`): the same commands on an HTTP client of its own, without the home's lock. Its
    /// runner never runs: the rows it adds are for the process that runs the queue, or the next one.
    /// Signals keep podq's default (exit 130, ``ProcessSignals``).
    /// - Parameter transport: the HTTP client in place of the session's own (a unit test's).
    package static func beside<T>(
        context: QueueContext, transport given: (any HTTPTransport)? = nil, note: @escaping @Sendable (String) -> Void = { Console.out($0) },
        isolation: isolated (any Actor)? = #isolation, _ body: (QueueSession) async throws -> T
    ) async throws -> T {
        let settings = context.settings
        return try await onClient(given, settings: settings, context: context) { transport in
            let session = QueueSession(context: context, settings: settings, transport: transport, rateLimiter: nil, frontEnd: FrontEnd(note: note))
            return try await session.closing(body)
        }
    }

    /// `body` on the given HTTP client, or on the session's own, made and shut down around it.
    private static func onClient<T>(
        _ given: (any HTTPTransport)?, settings: Settings, context: QueueContext, isolation: isolated (any Actor)? = #isolation,
        _ body: (any HTTPTransport) async throws -> T
    ) async throws -> T {
        if let given { return try await body(given) }
        return try await HTTPSession.with(settings: settings, logger: context.log, isolation: isolation) { try await body($0) }
    }

    /// Runs `body` with this session, then closes it, whether `body` returned or threw.
    private func closing<T>(isolation: isolated (any Actor)? = #isolation, _ body: (QueueSession) async throws -> T) async throws -> T {
        let result: T
        do {
            result = try await body(self)
        } catch {
            await close()
            throw error
        }
        await close()
        return result
    }

    /// The config's cleanup (`keep`, `size-budget`): the files deleted by the rules, their rows removed
    /// through the runner (the one writer of rows in this process, even after its run ended).
    func cleanup(quiet: Bool = false, say: (String) -> Void = { _ in }) async throws -> Cleanup.Report {
        let report = try await CleanupRun(context: context).run(quiet: quiet, removingRows: false, say: say)
        let ids = report.removed.compactMap(\.id)
        if !ids.isEmpty { _ = try await runner.remove(ids: ids, deletingFiles: false) }
        return report
    }

    /// Runs the queue: until nothing is runnable, or until ``stop()`` when `untilStopped` (the TUI
    /// waits for more work). Returns what the run did.
    package func run(untilStopped: Bool = false) async throws -> QueueRunner.Summary {
        runState.withLock { $0 = .running }
        defer { runState.withLock { $0 = .finished } }
        return try await runner.run(untilStopped: untilStopped)
    }

    /// Stops the run: every transfer paused with its partial file kept.
    package func stop() async {
        await runner.stop()
    }

    /// The end of a session, in its order: the runner stopped (unless its run ended by itself), the
    /// sidecars finished, the playlist written, the hooks awaited (each within `hook-timeout`).
    private func close() async {
        if runState.withLock({ $0 }) == .running { await stop() }
        await sidecars?.finish()
        if let written = await playlist?.write() { frontEnd.note("playlist: \(written)") }
        if let line = hooks?.waitingLine { frontEnd.note(line) }
        await hooks?.finish()
    }
}
