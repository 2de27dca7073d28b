import PodqCore
import Synchronization

/// A clock a test moves by hand, in seconds: the TUI loop's (through ``TestScreen``) and the queue
/// runner's (``QueueClock``: its waits end when ``advance(by:)`` passes their time, never before).
public final class ManualTime: QueueClock, Sendable {
    private struct State {
        var seconds: Double
        var nextWaiter = 0
        var waiters: [Int: (until: Double, resume: CheckedContinuation<Void, any Error>)] = [:]
    }
    private let state: Mutex<State>

    public init(at start: Double = 1_000) { state = Mutex(State(seconds: start)) }

    public var now: Double { state.withLock { $0.seconds } }

    /// The number of waits not yet over (a test waits for the runner to be asleep before it moves time).
    public var sleepers: Int { state.withLock { $0.waiters.count } }

    /// Moves the clock on, and ends every wait whose time has come.
    public func advance(by interval: Double) {
        let due = state.withLock { state in
            state.seconds += interval
            let now = state.seconds
            let due = state.waiters.filter { $0.value.until <= now }
            for id in due.keys { state.waiters[id] = nil }
            return due.values.map(\.resume)
        }
        for waiter in due { waiter.resume() }
    }

    public func sleep(seconds: Double) async throws {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if seconds <= 0 { return .success(()) }
                    state.waiters[id] = (state.seconds + seconds, continuation)
                    return nil
                }
                if let resumeNow { continuation.resume(with: resumeNow) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume.resume(throwing: CancellationError())
        }
    }
}
