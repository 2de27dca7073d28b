import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import Synchronization

/// What to tell the user while the queue database's lock is held by another program
/// (``LockWait``): a line when a wait passes two seconds, and one when it ends. `podq download` prints
/// them among its event lines, the TUI shows them on its message line; both go to the log.
///
/// One per command, made with its ``QueueContext`` and watched from then on (opening the database may
/// wait already): its lines go where the command says (standard error; `podq download`'s own lines;
/// the TUI's message line once it runs, ``route(to:)``).
package final class LockWaitNotice: Sendable {
    private let wait: LockWait
    private let announced = Mutex(false)
    private let say: Mutex<@Sendable (String) -> Void>

    package init(_ wait: LockWait, say: @escaping @Sendable (String) -> Void = { _ in }) {
        self.wait = wait
        self.say = Mutex(say)
    }

    /// Sends the next lines to `say`; returns where they went before.
    @discardableResult
    package func route(to say: @escaping @Sendable (String) -> Void) -> @Sendable (String) -> Void {
        self.say.withLock { current in
            defer { current = say }
            return current
        }
    }

    /// Polls every half second on a thread of its own for as long as the process lives: the command's
    /// own thread may be the one that waits (opening the database, a write).
    package func start() {
        DetachedThread.start { [self] in
            while true {
                usleep(500_000)
                if let line = poll() {
                    let target = say.withLock { $0 }
                    target(line)
                }
            }
        }
    }

    /// Says now what is to be said (a wait that just ended), before the lines go elsewhere or the
    /// command ends: the next poll may come too late.
    package func flush() {
        if let line = poll() {
            let target = say.withLock { $0 }
            target(line)
        }
    }

    /// The line to show now, if the state changed since the last call.
    package func poll() -> String? {
        if let seconds = wait.waiting, seconds >= 2 {
            let first = announced.withLock { announced in
                defer { announced = true }
                return !announced
            }
            return first
                ? "waiting: another program holds the queue database's lock (a backup, sqlite3?); podq waits for it, at most \(Int(LockWait.patience / 60)) minutes"
                : nil
        }
        let ended = wait.takeEnded()
        let was = announced.withLock { announced in
            defer { if ended != nil { announced = false } }
            return announced
        }
        guard was, let ended else { return nil }
        return String(printf: "the queue database's lock came free after %.0f s; going on", ended)
    }
}
