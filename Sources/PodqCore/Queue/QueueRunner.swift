import FoundationEssentials
import Glibc
import Logging
import PodqBase
import PodqHTTP
import Synchronization

/// Runs the stored queue: the one actor that owns it while podq runs it (`podq download`, the TUI).
///
/// Everything that changes a row in this process goes through here, one step at a time: the loop's
/// steps (read the store, let ``QueuePlanner`` say what to start and stop, start, checkpoint), what
/// operations have it save (``DownloadHooks``, awaited by them), their ends (``OutcomeDecision``),
/// and what a person does (``perform(_:id:)`` and the others in QueueRunner+Control.swift). Steps never
/// overlap (an async gate inside the actor), and every write reads the row first in its own
/// transaction, so a change another process made meanwhile (`podq queue pause 3`) is never overwritten.
/// Store writes are the store's async ones (the writer's own queue); no write happens on a network thread.
///
/// It reads the store twice a second, so downloads added, paused or cancelled by another process are
/// picked up within a second. Hold the ``HomeLock`` before running one.
public actor QueueRunner {
    /// Something worth a line of output.
    public enum Event: Sendable, Equatable {
        case started(id: Int64, title: String)
        case resumed(id: Int64, title: String, at: Int64)
        /// `unverified`: why the file differs from its published hash (it is kept, flagged).
        case completed(id: Int64, title: String, path: String, bytes: Int64, unverified: String?)
        case failed(id: Int64, title: String, reason: String)
        case retrying(id: Int64, title: String, in: Double, reason: String)
        /// Stopped with its partial file kept (quit, signal, a pause).
        case stopped(id: Int64, title: String, bytes: Int64)
        case cancelled(id: Int64, title: String)
        case diskFull(message: String)
        /// Something to tell the user about a download that goes on (``DownloadOperation/Event/notice(_:)``).
        case note(id: Int64, title: String, text: String)
    }

    /// How the run ended.
    public struct Summary: Sendable, Equatable {
        public var completed = 0
        public var failed = 0
        /// Completed, but differing from the file's published hash (counted in ``completed`` too).
        public var unverified = 0
        public var diskFull = false
        public var interrupted = false
    }

    /// Who hears what the runner does. Each is called from the runner's steps, one at a time, in order.
    public struct Observers: Sendable {
        /// Each operation the runner creates, before it starts (to show it).
        public var onOperation: @Sendable (DownloadOperation) -> Void
        /// What happens to each download, in the order it happened.
        public var onEvent: @Sendable (Event) -> Void
        /// Every download, in queue order, each time the runner reads the store (twice a second, and
        /// at once after a change): what a TUI lists.
        public var onSync: @Sendable ([DownloadRecord]) -> Void

        public init(
            onOperation: @escaping @Sendable (DownloadOperation) -> Void = { _ in },
            onEvent: @escaping @Sendable (Event) -> Void = { _ in },
            onSync: @escaping @Sendable ([DownloadRecord]) -> Void = { _ in }
        ) {
            self.onOperation = onOperation
            self.onEvent = onEvent
            self.onSync = onSync
        }
    }

    /// What other threads may read at any time without waiting for the actor (the TUI's frame).
    public struct Status: Sendable, Equatable {
        /// The number of downloads that may run at once.
        public var limit: Int
        /// The downloads running now.
        public var running = 0
        /// Queued downloads that could start but wait for their host (as of the last plan).
        public var waitingForHost = 0
        /// The number of downloads that may run at once from one host.
        public var perHost = 2
        /// Queued rows, due or not (as of the last plan).
        public var queued = 0
        /// Steps that looked at the queue (a tick, a wake, a command's change), whether or not the store
        /// had changed: what a test waits on instead of a clock.
        public var plans = 0
    }

    /// A running download.
    struct Running {
        let operation: DownloadOperation
        let host: String
        /// Ends when the operation has stopped (its partial kept or deleted, its file committed).
        let task: Task<Void, Never>
    }

    /// What the loop handles, one at a time.
    enum Input: Sendable {
        /// Read the store and plan (the 500 ms tick, a change, a retry that is due).
        case wake
        /// An operation stopped.
        case finished(Int64)
        /// The plan's timer rang: the earliest waiting retry is due.
        case due
    }

    let store: QueueStore
    let settings: Settings
    let transport: any HTTPTransport
    /// The connections segmented downloads may open, shared by every download of the run.
    nonisolated let connections: HostConnections
    let logger: Logger
    let observers: Observers
    /// The speed limit the downloads share, handed to each download (``DownloadConfiguration/pacing``).
    let pacing: RateLimiter?
    /// The login and `User-Agent` of a row's podcast (for an episode of a podcast that has them).
    let access: @Sendable (DownloadRecord) async -> PodcastAccess?
    /// The time the runner plans by and waits on (the machine's unless a test gives its own).
    nonisolated let clock: any QueueClock
    nonisolated let shared: Mutex<Status>
    nonisolated let mailbox = QueueMailbox<Input>()

    var running: [Int64: Running] = [:]
    var folders: [String: DownloadFolder] = [:]
    var summary = Summary()
    /// The decisions: what to read, start, stop and wake for, the limits and the hold.
    var machine: QueueMachine
    /// The plan's timer: a wake at the earliest queued row's retry time (``QueueMachine/Action/setTimer(at:)``).
    var timer: Task<Void, Never>?
    private var gateHeld = false
    private var gateWaiters: [CheckedContinuation<Void, Never>] = []

    /// - Parameters:
    ///   - logger: a line for each download's start, resume, end, retry and failure (with its cause and
    ///     the URLs it went through), and the requests at debug level; nothing by default.
    ///   - access: the login and `User-Agent` of a row's podcast, asked as the row starts (the
    ///     commands' layer reads the podcast and runs its password command); none by default.
    /// - Parameter pacing: the speed limit the downloads share (nil: none); each download reads under
    ///   it (``DownloadConfiguration/pacing``), the feeds and sidecars of the same client do not.
    /// - Parameter clock: the time retries come due in, and the tick's; the machine's by default.
    public init(
        store: QueueStore, settings: Settings, transport: any HTTPTransport, logger: Logger = .disabled,
        observers: Observers = Observers(), pacing: RateLimiter? = nil,
        access: @escaping @Sendable (DownloadRecord) async -> PodcastAccess? = { _ in nil },
        clock: any QueueClock = SystemQueueClock()
    ) {
        self.clock = clock
        self.pacing = pacing
        self.access = access
        self.store = store
        self.settings = settings
        self.transport = transport
        self.connections = HostConnections(
            perDownload: settings.connectionsPerDownload, perHost: settings.perHostDownloads,
            politeHosts: settings.politeHosts)
        self.logger = logger
        self.observers = observers
        self.machine = QueueMachine(limit: settings.simultaneousDownloads, perHost: settings.perHostDownloads)
        self.shared = Mutex(Status(limit: max(1, settings.simultaneousDownloads), perHost: max(1, settings.perHostDownloads)))
    }

    /// The runner's figures now, read without waiting.
    public nonisolated var status: Status { shared.withLock { $0 } }
    /// The number of downloads that may run at once.
    public nonisolated var maxConcurrent: Int { status.limit }
    /// The number of downloads running now.
    public nonisolated var runningCount: Int { status.running }
    /// Queued downloads that wait because their host has `per-host-downloads` running (as of the last plan).
    public nonisolated var waitingForHost: Int { status.waitingForHost }
    /// The number of downloads that may run at once from one host.
    public nonisolated var perHostLimit: Int { status.perHost }

    /// Runs until no download is running and none is queued (a retry that waits counts as queued),
    /// or, with `untilStopped` (the TUI), until ``stop()``. Call it once.
    public func run(untilStopped: Bool = false) async throws(StoreError) -> Summary {
        let mailbox = self.mailbox
        let clock = self.clock
        let ticker = Task {
            // Every 500 ms while anything runs or waits; every 2 s when the queue is quiet (all done
            // or paused): a key or a command wakes the loop at once, a retry's time wakes it (the
            // plan's timer), and only another process's change waits for the tick. Each tick reads
            // the store's change stamp.
            var interval = 0.5
            while !Task.isCancelled {
                do { try await clock.sleep(seconds: interval) } catch { break }
                mailbox.post(.wake)
                let now = self.status
                interval = now.running == 0 && now.queued == 0 ? 2 : 0.5
            }
        }
        defer {
            ticker.cancel()
            timer?.cancel()
        }
        mailbox.post(.wake)
        // A step the store refused (another program held its lock past LockWait.patience, the disk
        // failed): the run stops as on a signal, every transfer paused and its end saved if the store
        // lets it, and only then is the error thrown. No row is left `downloading` with nothing
        // running it, as far as the store can be written.
        var failure: StoreError?
        // Inputs taken without a plan since the last one: a burst is planned once, at its end, and
        // never more than `Self.unplannedLimit` inputs late.
        var unplanned = 0
        for await input in mailbox.inputs {
            let plan = mailbox.took() == 0 || unplanned >= Self.unplannedLimit
            unplanned = plan ? 0 : unplanned + 1
            // (The step catches its own errors: `exclusively` has nothing to throw.)
            let done =
                (try? await exclusively { () async throws(StoreError) -> Bool in
                    do throws(StoreError) {
                        try await self.handle(input, plan: plan)
                        // Not planned: an input waits, and its step plans (nothing is done before then).
                        if !plan { return false }
                    } catch {
                        if failure == nil {
                            failure = error
                            self.logger.error("the queue's store failed; stopping the run", metadata: ["reason": "\(ErrorText.describe(error))"])
                            self.machine.stop()
                            self.store.lockWait.giveUp()  // the ends still to save wait no longer than 2 s more
                            for run in self.running.values { run.operation.pause() }
                        }
                    }
                    return self.machine.isDone(anyRunning: !self.running.isEmpty, untilStopped: untilStopped)
                        || (failure != nil && self.running.isEmpty)
                }) ?? true
            if done { break }
        }
        // Stopped by a signal while the store could not be written: the run was interrupted (130), and
        // what could not be saved is reconciled at the next start.
        if let failure, !summary.interrupted { throw failure }
        return summary
    }

    /// Stops every running download, keeping its partial file and leaving it queued for the next
    /// start (what SIGINT, SIGTERM and quitting do). ``run(untilStopped:)`` returns once they stopped.
    public func stop() async {
        // Interrupted from now: a step that fails because it gave up on the lock ends the run as
        // interrupted (130), not as a store that failed (5).
        summary.interrupted = true
        // A step may be waiting for a lock another program holds: it gives up within 2 s, so the stop
        // (which waits for that step) is never held by it.
        store.lockWait.giveUp()
        await exclusively {
            self.machine.stop()
            self.summary.interrupted = true
            for run in self.running.values { run.operation.pause() }
        }
        wake()
    }

    /// Wakes the loop so a change is picked up now rather than at the next tick.
    public nonisolated func wake() {
        mailbox.post(.wake)
    }

    /// The most inputs taken in a row without a plan, however many more wait.
    static let unplannedLimit = 64

    /// Carries out `input`, then reads the queue and plans when `plan` says (no other input waits).
    private func handle(_ input: Input, plan: Bool) async throws(StoreError) {
        switch input {
        case .wake:
            break
        case .due:
            machine.timerRang()
        case .finished(let id):
            try await finish(id)
        }
        if plan { try await replan() }
    }

    func updateStatus() {
        shared.withLock {
            $0 = Status(
                limit: machine.limit, running: running.count, waitingForHost: machine.lastPlan.waitingForHost,
                perHost: machine.perHost, queued: machine.lastPlan.queued, plans: $0.plans)
        }
    }

    // MARK: - One step at a time

    /// Runs `body` when no other step runs: the loop's steps, the hooks and the commands never overlap,
    /// even across their awaits.
    func exclusively<T: Sendable>(_ body: () async throws(StoreError) -> T) async throws(StoreError) -> T {
        if gateHeld {
            await withCheckedContinuation { gateWaiters.append($0) }
        } else {
            gateHeld = true
        }
        defer {
            if gateWaiters.isEmpty { gateHeld = false } else { gateWaiters.removeFirst().resume() }
        }
        return try await body()
    }

    /// ``exclusively(_:)`` for a step that cannot fail.
    func exclusively(_ body: () async -> Void) async {
        try? await exclusively { () async throws(StoreError) in await body() }
    }
}
