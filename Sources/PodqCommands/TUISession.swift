import Dispatch
import Foundation
import Synchronization
import PodqCore
import PodqTerminal
import PodqUI

/// The TUI's frontend: holds the queue's lock, runs the queue (the same ``QueueRunner`` as
/// `podq download`), and loops on the main actor: wait up to 50 ms for a key, apply it, and draw a
/// frame when something changed: at once after a key, else at most 10 a second. Observers only mark the view model dirty;
/// frames are rendered from snapshots (docs/ARCHITECTURE.md).
@MainActor
final class TUISession {
    let context: QueueContext
    let settings: Settings
    let runner: QueueRunner
    /// The session's HTTP client (``HTTPSession`` makes and shuts it down): the downloads' and the feeds'.
    let transport: AsyncHTTPTransport
    /// The speed limit the downloads share; `<` and `>` change it live.
    let rateLimiter: RateLimiter
    let model: DownloadsViewModel
    let library: TUILibrary
    /// The Episodes view's rows between frames.
    let rowLists = RowListCache()
    let inbox: TUIInbox
    /// What the keys ask of the queue, carried out one after another off the main actor (TUISession+Actions).
    let commands: AsyncStream<@Sendable () async -> Void>.Continuation
    private let pending: AsyncStream<@Sendable () async -> Void>
    var state = TUIState()
    var tick = 0
    /// The number of downloads at once the keys asked for (`+`, `-`).
    var limit: Int
    /// The number of downloads at once from one host the keys asked for (`]`, `[`).
    var perHost: Int
    /// Timing for `podq-bench library` (`PODQ_TRACE_FRAMES`); nil otherwise.
    let trace = FrameTrace.fromEnvironment()

    /// Opens the TUI on `context`'s queue with the session's one HTTP client, and returns the exit code
    /// (0, 3 when another podq holds the queue, 130 after a signal).
    /// - Parameters:
    ///   - jobs: overrides the config's number of simultaneous downloads.
    ///   - perHost: overrides the config's number of simultaneous downloads from one host.
    ///   - keepsPartials: false when the caller removes the home afterwards (`podq demo` in a temporary
    ///     folder), so the TUI does not say the unfinished downloads resume next time.
    static func run(context: QueueContext, jobs: Int? = nil, perHost: Int? = nil, keepsPartials: Bool = true) async throws -> Int32 {
        var settings = context.settings
        if let jobs { settings.simultaneousDownloads = jobs }
        if let perHost { settings.perHostDownloads = perHost }
        let rateLimiter = RateLimiter(bytesPerSecond: settings.rateLimit)
        return try await HTTPSession.with(settings: settings, logger: context.log,
                                          rateLimiter: rateLimiter) { transport in
            try await TUISession(context: context, settings: settings, rateLimiter: rateLimiter, transport: transport)
                .run(keepsPartials: keepsPartials)
        }
    }

    private init(context: QueueContext, settings: Settings, rateLimiter: RateLimiter, transport: AsyncHTTPTransport) {
        self.context = context
        self.settings = settings
        self.rateLimiter = rateLimiter
        self.transport = transport
        self.limit = max(1, settings.simultaneousDownloads)
        self.perHost = max(1, settings.perHostDownloads)
        let model = DownloadsViewModel()
        let library = TUILibrary(store: context.store)
        let inbox = TUIInbox()
        self.model = model
        self.library = library
        self.inbox = inbox
        runner = QueueRunner(store: context.store, settings: settings, transport: transport, logger: context.log, observers: .init(
            onOperation: { model.track($0) },
            onEvent: { event in
                if case .diskFull = event {
                    inbox.setNotice("The disk is full: the queue is paused with every partial file kept. Free some space, then press P.")
                }
            },
            onSync: { model.update(records: $0, estimates: library.estimates) }),
            access: { [logins = PodcastLogin.Book(context: context)] in await logins.access(for: $0) })
        (pending, commands) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
        state.keys = context.settings.keys
    }

    /// Runs until `q`, SIGINT or SIGTERM; returns the exit code. The terminal is restored on every path.
    private func run(keepsPartials: Bool) async throws -> Int32 {
        trace?.started()
        guard let lock = try context.takeQueue() else { return ExitCodes.locked }
        defer { lock.release() }
        // The queue now, so the first frame shows it; the library is read in the background and
        // appears when it is ready (a big one takes a moment; the loop does not wait for it).
        do {
            model.update(records: try context.store.downloads())
        } catch {
            throw CommandError(error)
        }
        library.reload()
        let screen: CursesScreen
        do {
            screen = try CursesScreen(mouse: settings.mouse)
        } catch {
            throw CommandError(error.localizedDescription, code: ExitCodes.usage)
        }
        let inbox = self.inbox, runner = self.runner, pending = self.pending
        let interrupt = InterruptHandler { inbox.requestQuit(signal: true) }
        let queueTask = Task.detached {
            do {
                return try await runner.run(untilStopped: true)
            } catch {
                inbox.requestQuit(signal: false)  // the store failed: leave, restore, then say why
                throw error
            }
        }
        // The keys' work, in the order they were pressed.
        let worker = Task.detached {
            for await work in pending { await work() }
        }

        var failure: (any Error)?
        let context = self.context
        Task.detached(priority: .utility) {
            if let cleaned = try? CleanupRun(context: context).run(quiet: true), !cleaned.removed.isEmpty {
                inbox.post("cleanup: deleted \(cleaned.removed.count) old episode file\(cleaned.removed.count == 1 ? "" : "s") (\(Format.bytes(cleaned.bytes)))")
            }
        }
        context.log.info("tui started", metadata: ["jobs": "\(settings.simultaneousDownloads)", "folder": "\(context.paths.downloadFolder)"])
        loop(screen)
        screen.restore()
        trace?.write()
        interrupt.disarm()
        commands.finish()
        await worker.value
        await runner.stop()
        do {
            _ = try await queueTask.value
        } catch {
            failure = error
        }
        context.log.info("tui quit", metadata: ["signal": "\(inbox.quitBySignal)"])
        if let failure { throw CommandError(failure) }
        let stopped = ((try? context.store.downloads()) ?? []).filter { $0.state == .queued && $0.bytesReceived > 0 }.count
        if stopped > 0, keepsPartials {
            Console.out("podq: \(stopped) unfinished download\(stopped == 1 ? "" : "s") kept with \(stopped == 1 ? "its partial file" : "their partial files"); they resume on the next start.")
        }
        return inbox.quitBySignal ? ExitCodes.interrupted : ExitCodes.success
    }

    private var now: Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// The event loop: keys, actions, frames.
    private func loop(_ screen: CursesScreen) {
        var lastFrame = 0.0
        var lastAnimation = 0.0
        var needsFrame = true
        var keyPressed = false
        var lastActivity = now
        var speeds = SpeedHistory()
        while !state.quit && !inbox.quitRequested {
            var size = screen.size
            // Idle (nothing running, nothing happened for 2 s): wake 4 times a second instead of 20, so
            // an idle TUI costs next to nothing; a key still wakes it at once.
            let idle = runner.runningCount == 0 && now - lastActivity > 2
            // The first frame does not wait for a key.
            // While downloads run, wake when the next progress frame is due (every 95 ms), so frames
            // come evenly instead of up to a wait late.
            let due = runner.runningCount > 0 ? Int32(max(1, min(50, (lastFrame + 0.095 - now) * 1000))) : 50
            let key = screen.readKey(waiting: lastFrame == 0 ? 0 : idle ? 250 : due)
            let busySince = FrameTrace.now
            defer { trace?.busy(FrameTrace.now - busySince) }
            if let key {
                trace?.key()
                keyPressed = true
                if key == .resize {
                    screen.invalidate()
                    size = screen.size
                } else {
                    let actions = TUIController.handle(key, state: &state, snapshot: snapshot(), pageSize: TUIRenderer.tableRows(height: size.height))
                    for action in actions {
                        if case .play(let id) = action { play(id, on: screen) } else { perform(action) }
                    }
                }
                needsFrame = true
            }
            let time = now
            if let message = inbox.takeMessage() {
                state.message = message
                needsFrame = true
            }
            if let detail = inbox.takeDetail(), state.mode == .detail, state.detail?.view == detail.view, state.detail?.id == detail.id {
                state.detail = detail
                needsFrame = true
            }
            if let matches = inbox.takeNotesMatches() {
                TUIController.receive(matches, state: &state, snapshot: snapshot())
                needsFrame = true
            }
            if library.takeFresh() { needsFrame = true }
            if let failure = library.takeFailure() {
                state.message = .init("cannot read the episodes: \(failure)", isError: true)
                needsFrame = true
            }
            library.watch(at: time)
            if model.needsDisplay || inbox.takeChanged() { needsFrame = true }
            // Moving bars and falling speeds need frames even when no byte arrives.
            if time - lastAnimation >= 0.2, runner.runningCount > 0 {
                lastAnimation = time
                tick += 1
                needsFrame = true
            }
            // A key is answered at once; progress alone redraws at most 10 times a second (smooth
            // enough for bars, and half the CPU of 20: see docs/PERFORMANCE.md).
            guard needsFrame, keyPressed || time - lastFrame >= 0.095 else { continue }
            lastActivity = time
            keyPressed = false
            let frameBegin = FrameTrace.now
            var frame = snapshot()
            speeds.record(frame.totals.speed, at: time)
            frame.speedHistory = speeds.samples
            let grid = TUIRenderer(tick: tick).render(&state, frame, width: size.width, height: size.height)
            screen.draw(grid)
            trace?.frame(begin: frameBegin, libraryReady: library.isLoaded)
            lastFrame = time
            needsFrame = false
        }
    }

    /// The queue and the library now, as one value.
    func snapshot() -> TUISnapshot {
        var snapshot = TUISnapshot(downloads: model.snapshot(), library: library.current, episodeStates: model.episodeStates, rowLists: rowLists,
                    limit: runner.maxConcurrent, rateLimit: rateLimiter.bytesPerSecond, notice: inbox.notice,
                    waitingForHost: runner.waitingForHost, perHost: runner.perHostLimit)
        snapshot.playedChanges = library.playedChanges
        snapshot.statesVersion = model.episodeStatesVersion << 24 ^ library.playedVersion
        return snapshot
    }
}

/// What other threads hand the main loop: a quit request from a signal handler, messages from
/// background work (the keys' work, adding a feed), and the disk-full notice.
final class TUIInbox: Sendable {
    private struct Contents {
        var quit = false
        var bySignal = false
        var message: TUIState.Message?
        var changed = false
        var notice: String?
        var detail: Detail?
        var notes: NotesMatches?
        var notesAsked = 0
        var notesAnswered = 0
    }

    private let contents = Mutex(Contents())

    func requestQuit(signal: Bool) {
        contents.withLock {
            $0.quit = true
            $0.bySignal = $0.bySignal || signal
        }
    }

    var quitRequested: Bool { contents.withLock { $0.quit } }
    var quitBySignal: Bool { contents.withLock { $0.bySignal } }
    var notice: String? { contents.withLock { $0.notice } }

    func post(_ text: String, isError: Bool = false) {
        contents.withLock { $0.message = .init(SafeText.clean(text), isError: isError) }
    }

    /// The detail pane's contents, read in the background.
    func post(detail: Detail) {
        contents.withLock { $0.detail = detail }
    }

    func takeDetail() -> Detail? { take(\.detail) }

    /// A number for the next search of the show notes: answers come back in any order (each runs in
    /// a task of its own), and an older one must not take the place of a newer.
    func nextNotesSearch() -> Int {
        contents.withLock {
            $0.notesAsked += 1
            return $0.notesAsked
        }
    }

    /// The episodes whose show notes match search number `number`, found in the background; kept
    /// only when no later search has answered.
    func post(notes: NotesMatches, number: Int) {
        contents.withLock {
            guard number > $0.notesAnswered else { return }
            $0.notesAnswered = number
            $0.notes = notes
        }
    }

    func takeNotesMatches() -> NotesMatches? { take(\.notes) }

    func takeMessage() -> TUIState.Message? { take(\.message) }

    /// What was posted to `field` since the last take, once.
    private func take<Value: Sendable>(_ field: WritableKeyPath<Contents, Value?>) -> Value? {
        contents.withLock { contents in
            defer { contents[keyPath: field] = nil }
            return contents[keyPath: field]
        }
    }

    func setNotice(_ text: String?) {
        contents.withLock {
            $0.notice = text
            $0.changed = true
        }
    }

    func takeChanged() -> Bool {
        contents.withLock { contents in
            defer { contents.changed = false }
            return contents.changed
        }
    }
}
