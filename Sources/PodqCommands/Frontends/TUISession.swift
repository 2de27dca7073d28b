import Dispatch
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqSession
import PodqTerminal
import PodqUI
import Synchronization

/// The TUI's front end: a view of a ``QueueSession`` (the same run of the queue as `podq download`)
/// on the main actor: wait for a key, apply it, and draw a frame when the ``FramePacer`` says: at once
/// after a key, on a steady cadence of about 12 a second while downloads run. Observers only mark the
/// view model dirty; frames are rendered from snapshots (docs/ARCHITECTURE.md). Everything the keys
/// ask goes to the session as a ``QueueSession/Command``; what is shown comes from its reads.
@MainActor
final class TUISession {
    let settings: Settings
    let session: QueueSession
    let reader: QueueSession.Reader
    let model: DownloadsViewModel
    let library: TUILibrary
    /// The Episodes view's rows between frames.
    let rowLists = RowListCache()
    let events: TUIEvents
    /// What the keys ask of the queue, carried out one after another off the main actor (TUISession+Actions).
    let commands: AsyncStream<TUIWork>.Continuation
    /// The bulk actions started beside the keys' work: awaited at quit, after the runner stopped (a
    /// write that waits for another program's lock then gives up within 2 s), so none writes once the
    /// home's lock is released.
    let bulkWork = BulkWork()
    /// A sync runs (one at a time: the key, the start, the interval).
    let syncing = OneAtATime()
    /// What `o` looked up in the background, until the loop hands the terminal to the player.
    let playbacks = PendingPlays()
    private let pending: AsyncStream<TUIWork>
    var state = TUIState()
    /// The number of downloads at once the keys asked for (`+`, `-`).
    var limit: Int
    /// The number of downloads at once from one host the keys asked for (`]`, `[`).
    var perHost: Int
    /// Timing for `podq-bench library` (`PODQ_TRACE_FRAMES`); nil otherwise.
    let trace = FrameTrace.fromEnvironment()

    /// Opens the TUI on `context`'s queue, and returns the exit code (0, 3 when another podq holds the
    /// queue, 130 after a signal).
    /// - Parameters:
    ///   - jobs: overrides the config's number of simultaneous downloads.
    ///   - perHost: overrides the config's number of simultaneous downloads from one host.
    ///   - connections: overrides the config's connections per download.
    ///   - keepsPartials: false when the caller removes the home afterwards (`podq demo` in a temporary
    ///     folder), so the TUI does not say the unfinished downloads resume next time.
    ///   - screen: the terminal; ncurses' (``CursesScreen``) unless a test gives its own (`TestScreen`).
    static func run(
        context: QueueContext, jobs: Int? = nil, perHost: Int? = nil, connections: Int? = nil, keepsPartials: Bool = true,
        screen: (@MainActor (Settings) throws -> any TerminalScreen)? = nil, clock: (@Sendable () -> Double)? = nil
    ) async throws -> Int32 {
        let model = DownloadsViewModel()
        let events = TUIEvents()
        let library = TUILibrary(reader: QueueSession.Reader(context: context), post: events.post)
        // The session's lines go to the message line while the screen is up, to the terminal after.
        let screenClosed = Mutex(false)
        let frontEnd = QueueSession.FrontEnd(
            onOperation: { model.track($0) },
            onEvent: { event in
                if case .diskFull = event {
                    events.post(.notice("The disk is full: the queue is paused with every partial file kept. Free some space, then press P."))
                }
                if case .note(_, let title, let text) = event { events.post("\(title): \(text)") }
            },
            onSync: { model.update(records: $0, estimates: library.estimates) },
            note: { line in
                if screenClosed.withLock({ $0 }) { Console.out(line.hasPrefix("podq: ") ? line : "podq: " + line) } else { events.post(line) }
            },
            onSignal: { events.post(.quit(bySignal: true)) },
            adjustableRate: true,
            cleanup: .atStart(report: { cleaned in
                if cleaned.heldBack > 0 {
                    events.post(
                        "cleanup: the rules changed: they would delete \(cleaned.heldBack) played episode file\(cleaned.heldBack == 1 ? "" : "s"); "
                            + "nothing deleted now (podq cleanup --dry-run lists them)")
                } else if !cleaned.removed.isEmpty {
                    // Which ones, on the message line (their rows leave the queue): not only in the log.
                    let titles = cleaned.removed.prefix(3).map(\.title) + (cleaned.removed.count > 3 ? ["and \(cleaned.removed.count - 3) more"] : [])
                    events.post(
                        "cleanup deleted \(cleaned.removed.count) episode file\(cleaned.removed.count == 1 ? "" : "s") (\(Format.bytes(cleaned.bytes)), "
                            + "the keep rules; podq cleanup --dry-run shows them): " + titles.joined(separator: "; "))
                }
            }))
        let overrides = QueueSession.Overrides(jobs: jobs, perHost: perHost, connections: connections)
        let code = try await QueueSession.with(context: context, overrides: overrides, frontEnd: frontEnd) { session in
            try await TUISession(session: session, model: model, library: library, events: events, clock: clock ?? Self.uptime)
                .run(keepsPartials: keepsPartials, screen: screen) { screenClosed.withLock { $0 = true } }
        }
        return code ?? ExitCodes.locked
    }

    private init(session: QueueSession, model: DownloadsViewModel, library: TUILibrary, events: TUIEvents, clock: @escaping @Sendable () -> Double) {
        self.clock = clock
        self.session = session
        self.reader = session.reader
        self.settings = session.settings
        self.limit = max(1, settings.simultaneousDownloads)
        self.perHost = max(1, settings.perHostDownloads)
        self.model = model
        self.library = library
        self.events = events
        (pending, commands) = AsyncStream.makeStream(of: TUIWork.self)
        state.keys = settings.keys
    }

    /// Runs until `q`, SIGINT, SIGTERM, SIGHUP or the terminal hanging up; returns the exit code. The
    /// terminal is restored on every path; `restored` is called once it is.
    private func run(
        keepsPartials: Bool, screen makeScreen: (@MainActor (Settings) throws -> any TerminalScreen)?,
        restored: () -> Void
    ) async throws -> Int32 {
        trace?.started()
        // The queue now, so the first frame shows it. The library (a big one takes a moment) and the
        // runner start once the first frame is on the screen: on two cores they would take its CPU.
        do {
            model.update(records: try await reader.downloads())
        } catch {
            throw CommandError(error)
        }
        let screen: any TerminalScreen
        do {
            screen = try makeScreen?(settings) ?? CursesScreen(mouse: settings.mouse)
        } catch {
            throw CommandError(ErrorText.describe(error), code: ExitCodes.usage)
        }
        let events = self.events, session = self.session, pending = self.pending, library = self.library
        var queueTask: Task<QueueRunner.Summary, any Error>?
        var worker: Task<Void, Never>?
        loop(screen) {
            library.reload()
            queueTask = Task.detached {
                do {
                    return try await session.run(untilStopped: true)
                } catch {
                    events.post(.quit(bySignal: false))  // the store failed: leave, restore, then say why
                    throw error
                }
            }
            // The keys' work, in the order they were pressed.
            worker = Task.detached { [bulkWork] in
                for await work in pending { await work.carryOut(on: session, events: events, library: library, bulk: bulkWork) }
            }
            session.log.info("tui started", metadata: ["jobs": "\(settings.simultaneousDownloads)", "folder": "\(session.paths.downloadFolder)"])
        }
        screen.restore()
        restored()
        trace?.write()
        commands.finish()
        await worker?.value
        await session.stop()
        await bulkWork.finish()
        var failure: (any Error)?
        do {
            _ = try await queueTask?.value
        } catch {
            failure = error
        }
        // A signal during the shutdown counts too.
        for case .quit(bySignal: true) in events.drain() { state.quitBySignal = true }
        session.log.info("tui quit", metadata: ["signal": "\(state.quitBySignal)"])
        if let failure { throw CommandError(failure) }
        let stopped = ((try? await reader.downloads()) ?? []).filter { $0.state == .queued && $0.bytesReceived > 0 }.count
        if stopped > 0, keepsPartials {
            Console.out(
                "podq: \(stopped) unfinished download\(stopped == 1 ? "" : "s") kept with \(stopped == 1 ? "its partial file" : "their partial files"); they resume on the next start."
            )
        }
        return state.quitBySignal ? ExitCodes.interrupted : ExitCodes.success
    }

    /// The loop's clock, in seconds: the frames' cadence, the library's watch, the sync interval. The
    /// system's uptime, or a test's (`TestScreen` with a `ManualTime` advances it by each wait).
    private let clock: @Sendable () -> Double
    private var now: Double { clock() }
    private static let uptime: @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// The event loop: keys, actions, frames. When to draw and how long to wait for a key is the
    /// ``FramePacer``'s: while downloads run, frames come on a steady cadence and the loop wakes for a
    /// key or the next frame's deadline only.
    /// - Parameter afterFirstFrame: called once, when the first frame is on the screen (never when the
    ///   loop ends before one was drawn: nothing was shown, nothing runs).
    private func loop(_ screen: any TerminalScreen, afterFirstFrame: () -> Void) {
        var started = false
        var pacer = FramePacer()
        var needsFrame = true
        // `sync = auto`: once the loop runs, then every `sync-interval` (never in the way of a frame: in the background).
        var nextSync: Double? = settings.syncAuto ? now : nil
        var speeds = SpeedHistory()
        var wasRunning = false
        while !state.quit {
            var size = screen.size
            let running = session.status.running > 0
            // The last download just stopped: what their connections' buffers held goes back to the
            // system (measured in the library bench: 84 → 72 MB once 50 downloads were paused).
            if wasRunning && !running { Task.detached(priority: .utility) { FreedMemory.release() } }
            wasRunning = running
            let key = screen.readKey(waiting: pacer.wait(now: now, moving: running, changed: needsFrame))
            if screen.isHungUp {
                // Nobody can see or type any more: stop as after SIGHUP, with every partial kept.
                _ = TUIController.apply(.quit(bySignal: true), state: &state, snapshot: snapshot(), pageSize: 1)
                break
            }
            let busySince = FrameTrace.now
            defer { trace?.busy(FrameTrace.now - busySince) }
            // The key first, then what the other threads posted meanwhile, each in its order.
            var arrived: [TUIEvent] = []
            if let key {
                trace?.key()
                needsFrame = true
                if key == .resize {
                    screen.invalidate()
                    size = screen.size
                } else {
                    arrived.append(.key(key))
                }
            }
            arrived += events.drain()
            for event in arrived {
                let actions = TUIController.apply(event, state: &state, snapshot: snapshot(), pageSize: TUIRenderer.tableRows(height: size.height))
                for action in actions {
                    if case .startPlayer(let id) = action { startPlayer(id, on: screen) } else { perform(action) }
                }
                needsFrame = true
            }
            if state.quit { break }
            let time = now
            library.watch(at: time)
            if let due = nextSync, time >= due {
                sync(asked: false)
                nextSync = settings.syncInterval > 0 ? time + settings.syncInterval : nil
            }
            if model.needsDisplay { needsFrame = true }
            guard pacer.frameDue(now: time, moving: session.status.running > 0, changed: needsFrame, key: key != nil) else { continue }
            let tick = FramePacer.tick(at: time)
            let frameBegin = FrameTrace.now
            var frame = snapshot()
            speeds.record(frame.totals.speed, at: time)
            frame.speedHistory = speeds.samples
            let grid = TUIRenderer(tick: tick).render(&state, frame, width: size.width, height: size.height)
            screen.draw(grid)
            trace?.frame(begin: frameBegin, libraryReady: library.isLoaded)
            needsFrame = false
            if !started {
                started = true
                afterFirstFrame()
            }
        }
    }

    /// The queue and the library now, as one value.
    func snapshot() -> TUISnapshot {
        let status = session.status
        var snapshot = TUISnapshot(
            downloads: model.snapshot(), library: library.current, episodeStates: model.episodeStates, rowLists: rowLists,
            limit: status.limit, rateLimit: status.rateLimit, waitingForHost: status.waitingForHost, perHost: status.perHost)
        snapshot.playedChanges = library.playedChanges
        snapshot.libraryLoading = !library.isLoaded
        snapshot.statesVersion = model.episodeStatesVersion << 24 ^ library.playedVersion
        return snapshot
    }
}

/// What `o` looked up, by download, until the loop gives the player the terminal.
final class PendingPlays: Sendable {
    private let ready = Mutex<[Int64: Playback]>([:])

    func add(_ playback: Playback) { ready.withLock { $0[playback.id] = playback } }

    func take(_ id: Int64) -> Playback? { ready.withLock { $0.removeValue(forKey: id) } }
}

/// The tasks of the TUI's bulk actions, so that quitting waits for them.
final class BulkWork: Sendable {
    private let tasks = Mutex<[Task<Void, Never>]>([])

    func add(_ task: Task<Void, Never>) { tasks.withLock { $0.append(task) } }

    /// Waits for every task added (and any a task added meanwhile).
    func finish() async {
        while let next = tasks.withLock({ $0.popLast() }) { await next.value }
    }
}

/// Work of which one runs at a time (the TUI's syncs).
final class OneAtATime: Sendable {
    private let running = Mutex(false)

    /// True when nothing ran, and now this does; false when one still runs.
    func start() -> Bool {
        running.withLock { running in
            defer { running = true }
            return !running
        }
    }

    func finish() { running.withLock { $0 = false } }
}
