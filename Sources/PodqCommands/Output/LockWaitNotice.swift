import Foundation
import PodqCore
import Synchronization

/// What to tell the user while the queue database's lock is held by another program
/// (``LockWait``): a line when a wait passes two seconds, and one when it ends. `podq download` prints
/// them among its event lines, the TUI shows them on its message line; both go to the log.
final class LockWaitNotice: Sendable {
    private let wait: LockWait
    private let announced = Mutex(false)

    init(_ wait: LockWait) { self.wait = wait }

    /// The line to show now, if the state changed since the last call.
    func poll() -> String? {
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
        return String(format: "the queue database's lock came free after %.0f s; going on", ended)
    }

    /// Polls every half second, handing each line to `say`, until the task is cancelled.
    func watch(_ say: @escaping @Sendable (String) -> Void) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                if let line = poll() { say(line) }
            }
        }
    }
}
