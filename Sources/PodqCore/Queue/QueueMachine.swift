import FoundationEssentials
import Glibc

/// The queue runner's decisions, as a value: each event (a look at the queue, the rows read, the
/// timer ringing, a limit changed, a stop, a full disk) returns the actions the ``QueueRunner`` actor
/// carries out (read the rows, stop or start a download, set or cancel the plan's timer, checkpoint).
/// It does no I/O and reads no clock: the time comes in with each event, so a test drives it look by
/// look with plain values.
///
/// What to start and stop is ``QueuePlanner``'s pure function of the rows; this value adds what the
/// runner decides around it:
/// - a look reads the rows only when something may have changed: a download runs, the store's change
///   stamp moved, the limit, the per-host cap or the hold changed, or the earliest waiting retry is due;
/// - the plan's timer is one wake at the earliest waiting retry, set again only when that time moves,
///   cancelled when nothing waits;
/// - the running downloads' progress is saved at most once a second;
/// - nothing starts while it holds (stopping, or paused by a full disk), and the run is done when
///   nothing runs and nothing is queued (or, for the TUI, when it was stopped).
struct QueueMachine: Sendable {
    enum Action: Sendable, Equatable {
        /// Read every row and pass them to ``plan(rows:running:now:)``.
        case readRows
        /// Stop a running download: cancel it (its row was cancelled or removed) or pause it.
        case stop(Int64, QueuePlanner.Stop)
        /// Start the queued row `id` (the actor claims it in the store first).
        case start(Int64)
        /// Set the plan's timer to ring at this time, replacing the one set before.
        case setTimer(at: Double)
        case cancelTimer
        /// Save the running downloads' bytes.
        case checkpoint
    }

    /// What a plan depends on besides the time and the running downloads.
    struct Basis: Equatable, Sendable {
        var stamp: QueueStore.ChangeStamp
        var limit: Int
        var perHost: Int
        var hold: OutcomeDecision.Hold
    }

    /// Downloads at once (at least 1).
    private(set) var limit: Int
    /// Downloads at once from one host (at least 1).
    private(set) var perHost: Int
    private(set) var hold = OutcomeDecision.Hold.none
    /// The last plan: its counts are the runner's status, and whether the run is done.
    private(set) var lastPlan = QueuePlanner.Plan()
    /// When the plan's timer rings; nil when none is set.
    private(set) var timer: Double?
    /// What the last plan was made from, and when it stops holding (the earliest waiting retry).
    private var planned: (basis: Basis, due: Double)?
    /// The basis of the look that asked for the rows.
    private var looking: Basis?
    private var lastCheckpoint = -Double.infinity

    init(limit: Int, perHost: Int) {
        self.limit = max(1, limit)
        self.perHost = max(1, perHost)
    }

    // MARK: - Events

    /// A look at the queue at `now` (the tick, a wake, the timer), with the store's change stamp.
    /// Nothing runs and nothing changed since the last plan: the plan would be the same, so the rows
    /// are not read again (a timer that rang a little early is set again).
    mutating func look(now: Double, stamp: QueueStore.ChangeStamp, anyRunning: Bool) -> [Action] {
        let basis = Basis(stamp: stamp, limit: limit, perHost: perHost, hold: hold)
        if !anyRunning, let planned, planned.basis == basis, now < planned.due {
            return setTimer(planned.due.isFinite ? planned.due : nil)
        }
        looking = basis
        return [.readRows]
    }

    /// The rows were read (after ``look(now:stamp:anyRunning:)`` asked): what to stop and start, the
    /// timer for the earliest waiting retry, and a checkpoint at most once a second.
    /// - Parameter running: the downloads running now, with the host each counts against.
    mutating func plan(rows: [DownloadRecord], running: [Int64: String], now: Double) -> [Action] {
        let plan = QueuePlanner.plan(
            QueuePlanner.Input(rows: rows, running: running, limit: limit, perHost: perHost, now: now, holding: hold != .none))
        lastPlan = plan
        if let looking { planned = (looking, plan.nextDue.map { now + $0 } ?? .infinity) }
        looking = nil
        var actions: [Action] = plan.stop.sorted { $0.key < $1.key }.map { .stop($0.key, $0.value) }
        actions += plan.start.map { .start($0) }
        actions += setTimer(plan.nextDue.map { now + max(0.01, $0) })
        if now - lastCheckpoint >= 1 {
            lastCheckpoint = now
            actions.append(.checkpoint)
        }
        return actions
    }

    /// The plan's timer rang (the look that follows decides what is due).
    mutating func timerRang() {
        timer = nil
    }

    mutating func setLimit(_ value: Int) {
        limit = max(1, value)
    }

    mutating func setPerHost(_ value: Int) {
        perHost = max(1, value)
    }

    /// Quit, a signal, or a store that failed: nothing starts again, and the run ends when nothing runs.
    mutating func stop() {
        hold = .stopping
    }

    /// An operation ended on a full disk: nothing starts until a person resumes (unless stopping).
    mutating func diskFull() {
        if hold != .stopping { hold = .diskFull }
    }

    /// A person resumed or retried a download: a pause made by a full disk is lifted.
    mutating func resumed() {
        if hold == .diskFull { hold = .none }
    }

    // MARK: - Reads

    /// True when the run is over: nothing runs, and it was stopped, or the disk is full, or nothing is
    /// queued (a retry that waits counts as queued). `untilStopped` (the TUI) runs until stopped.
    func isDone(anyRunning: Bool, untilStopped: Bool) -> Bool {
        guard !anyRunning else { return false }
        if hold == .stopping { return true }
        if untilStopped { return false }
        return hold == .diskFull || lastPlan.queued == 0
    }

    private mutating func setTimer(_ at: Double?) -> [Action] {
        guard timer != at else { return [] }
        timer = at
        return [at.map { .setTimer(at: $0) } ?? .cancelTimer]
    }
}
