import Synchronization

/// A wait with a deadline for work that cannot be cancelled: a shutdown that awaits a library's
/// futures, a task whose children may sit in a non-cancellable await. Every wait has a deadline
/// (README, the promise).
///
/// The work runs in a task of its own, so the caller returns at the deadline even though the work
/// goes on; what it was doing is then left to the process (it ends, or the work finishes later).
public enum BoundedWait {
    /// Runs `work` and waits for it, at most `limit`: true if it finished in time.
    @discardableResult
    public static func run(within limit: Duration, _ work: @escaping @Sendable () async -> Void) async -> Bool {
        let outcome = Outcome()
        return await withCheckedContinuation { continuation in
            outcome.set(continuation)
            let deadline = Task {
                try? await Task.sleep(for: limit)
                outcome.resume(false)
            }
            Task {
                await work()
                outcome.resume(true)
                deadline.cancel()
            }
        }
    }

    /// The first of the work and the deadline to arrive resumes the waiter; the other finds nothing.
    private final class Outcome: Sendable {
        private let waiter = Mutex<CheckedContinuation<Bool, Never>?>(nil)

        func set(_ continuation: CheckedContinuation<Bool, Never>) { waiter.withLock { $0 = continuation } }

        func resume(_ finished: Bool) {
            waiter.withLock { waiter in
                defer { waiter = nil }
                return waiter
            }?.resume(returning: finished)
        }
    }
}
