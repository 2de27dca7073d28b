import Dispatch
import Foundation
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
    let transport: AsyncHTTPTransport
    /// The speed limit the downloads share; `<` and `>` change it live.
    let rateLimiter: RateLimiter
    let model = DownloadsViewModel()
    let library: TUILibrary
    let inbox = TUIInbox()
    var state = TUIState()
    var tick = 0

    /// - Parameters:
    ///   - jobs: overrides the config's number of simultaneous downloads.
    ///   - perHost: overrides the config's number of simultaneous downloads from one host.
    init(context: QueueContext, jobs: Int? = nil, perHost: Int? = nil) {
        self.context = context
        var settings = context.settings
        if let jobs { settings.simultaneousDownloads = jobs }
        if let perHost { settings.perHostDownloads = perHost }
        self.settings = settings
        rateLimiter = RateLimiter(bytesPerSecond: settings.rateLimit)
        transport = AsyncHTTPTransport(stallTimeout: .milliseconds(Int(settings.stallTimeout * 1000)), rateLimiter: rateLimiter)
        runner = QueueRunner(store: context.store, settings: settings, transport: transport)
        runner.logger = context.log
        state.keys = context.settings.keys
        library = TUILibrary(store: context.store)
    }

    /// Runs until `q`, SIGINT or SIGTERM; returns the exit code (0, 3 when another podq holds the
    /// queue, 130 after a signal). The terminal is restored on every path.
    func run() async throws -> Int32 {
        guard let lock = try context.takeQueue() else { return ExitCodes.locked }
        do {
            try library.reloadIfNeeded(at: now, force: true)
        } catch {
            lock.release()
            throw CommandError(error)
        }
        defer { lock.release() }

        let screen: CursesScreen
        do {
            screen = try CursesScreen()
        } catch {
            await transport.shutdown()
            throw CommandError(error.localizedDescription, code: ExitCodes.usage)
        }
        let model = self.model, library = self.library, inbox = self.inbox
        runner.onOperation = { model.track($0) }
        runner.onSync = { model.update(records: $0, estimates: library.estimates) }
        runner.onEvent = { event in
            library.markStale()
            if case .diskFull = event {
                inbox.setNotice("The disk is full: the queue is paused with every partial file kept. Free some space, then press P.")
            }
        }
        let interrupt = InterruptHandler { inbox.requestQuit(signal: true) }
        let runner = self.runner
        let queueTask = Task.detached {
            do {
                return try await runner.run(untilStopped: true)
            } catch {
                inbox.requestQuit(signal: false)  // the store failed: leave, restore, then say why
                throw error
            }
        }

        var failure: (any Error)?
        if let cleaned = try? CleanupRun(context: context).run(quiet: true), !cleaned.removed.isEmpty {
            state.message = .init("cleanup: deleted \(cleaned.removed.count) old episode file\(cleaned.removed.count == 1 ? "" : "s") (\(Format.bytes(cleaned.bytes)))")
        }
        context.log.info("tui started", metadata: ["jobs": "\(settings.simultaneousDownloads)", "folder": "\(context.paths.downloadFolder)"])
        loop(screen)
        screen.restore()
        interrupt.disarm()
        await runner.stop()
        do {
            _ = try await queueTask.value
        } catch {
            failure = error
        }
        await transport.shutdown()
        context.log.info("tui quit", metadata: ["signal": "\(inbox.quitBySignal)"])
        if let failure { throw CommandError(failure) }
        let stopped = ((try? context.store.downloads()) ?? []).filter { $0.state == DownloadState.queued.name && $0.bytesReceived > 0 }.count
        if stopped > 0 {
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
        while !state.quit && !inbox.quitRequested {
            var size = screen.size
            if let key = screen.readKey() {
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
            if (try? library.reloadIfNeeded(at: time)) == true { needsFrame = true }
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
            keyPressed = false
            let grid = TUIRenderer(tick: tick).render(&state, snapshot(), width: size.width, height: size.height)
            screen.draw(grid)
            lastFrame = time
            needsFrame = false
        }
    }

    /// The queue and the library now, as one value.
    func snapshot() -> TUISnapshot {
        TUISnapshot(downloads: model.snapshot(), episodes: library.episodes, podcasts: library.podcasts,
                    limit: runner.maxConcurrent, rateLimit: rateLimiter.bytesPerSecond, notice: inbox.notice,
                    waitingForHost: runner.waitingForHost, perHost: settings.perHostDownloads)
    }
}

/// What other threads hand the main loop: a quit request from a signal handler, messages from
/// background work (adding a feed), and the disk-full notice.
final class TUIInbox: @unchecked Sendable {
    private let lock = NSLock()
    private var quit = false
    private var bySignal = false
    private var message: TUIState.Message?
    private var changed = false
    private var _notice: String?

    func requestQuit(signal: Bool) {
        lock.withLock {
            quit = true
            bySignal = bySignal || signal
        }
    }

    var quitRequested: Bool { lock.withLock { quit } }
    var quitBySignal: Bool { lock.withLock { bySignal } }
    var notice: String? { lock.withLock { _notice } }

    func post(_ text: String, isError: Bool = false) {
        lock.withLock { message = .init(text, isError: isError) }
    }

    func takeMessage() -> TUIState.Message? {
        lock.withLock {
            defer { message = nil }
            return message
        }
    }

    func setNotice(_ text: String?) {
        lock.withLock {
            _notice = text
            changed = true
        }
    }

    func takeChanged() -> Bool {
        lock.withLock {
            defer { changed = false }
            return changed
        }
    }
}
