import Foundation
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
        let elapsed = state.withLock { state -> Double in
            let now = Date().timeIntervalSince1970
            if state.since == nil { state.since = now }
            return now - state.since!
        }
        guard elapsed < Self.patience else { return false }
        usleep(tries < 20 ? 5_000 : 50_000)
        return true
    }

    /// A write (or its failure) came back: the wait, if any, is over.
    func done() {
        state.withLock { state in
            guard let since = state.since else { return }
            state.since = nil
            state.ended = Date().timeIntervalSince1970 - since
        }
    }
}
