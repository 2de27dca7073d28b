import FoundationEssentials
import Glibc
import Synchronization

/// How long this process has waited for the queue database's write lock, held by another program
/// (a backup tool, `sqlite3`, another podq writing a big change): SQLite's busy handler starts the
/// clock, the write that then goes through stops it. The TUI and `podq download` read it without
/// waiting, to say that podq waits and why.
public final class LockWait: Sendable {
    /// How long a write waits for the lock before it fails: 10 minutes, longer than a backup of the
    /// database takes, short enough that a program that never lets go is said as an error.
    public static let patience: Double = 600

    private struct State {
        /// Set once the run is stopping (a signal, a store that failed): no wait goes past it.
        var giveUpAt: Double?
        var since: Double?
        /// The last wait that ended, in seconds, until it is taken by ``takeEnded()``.
        var ended: Double?
    }

    private let state = Mutex(State())

    public init() {}

    /// Seconds the current wait has lasted; nil when nothing waits.
    public var waiting: Double? {
        state.withLock { $0.since.map { Date().timeIntervalSince1970 - $0 } }
    }

    /// The length of the last wait that ended, once.
    public func takeEnded() -> Double? {
        state.withLock { state in
            defer { state.ended = nil }
            return state.ended
        }
    }

    /// SQLite found the database locked (`tries` times so far for this statement): waits a little and
    /// returns true to try again, or false once ``patience`` is spent.
    func busy(tries: Int) -> Bool {
        let goOn = state.withLock { state -> Bool in
            let now = Date().timeIntervalSince1970
            if state.since == nil { state.since = now }
            return now - state.since! < Self.patience && now < state.giveUpAt ?? .infinity
        }
        guard goOn else { return false }
        usleep(tries < 20 ? 5_000 : 50_000)
        return true
    }

    /// The run is stopping (SIGTERM, a store that failed): every wait for the lock, now and later, ends
    /// within `seconds`, so that stopping is never held by another program's lock. A write that then
    /// fails leaves its row as it was; the next start reconciles it.
    public func giveUp(within seconds: Double = 2) {
        state.withLock { state in
            let at = Date().timeIntervalSince1970 + seconds
            state.giveUpAt = min(state.giveUpAt ?? at, at)
        }
    }

    /// A write came back: the wait, if any, is over; with `gotIt`, the lock came free (said), else the
    /// write gave up (its error says so). Returns how long it waited; nil when it did not.
    @discardableResult
    func done(gotIt: Bool) -> Double? {
        state.withLock { state in
            guard let since = state.since else { return nil }
            state.since = nil
            let waited = Date().timeIntervalSince1970 - since
            if gotIt { state.ended = waited }
            return waited
        }
    }
}
