import Synchronization

/// The runner's inputs, and how many wait: the loop plans once for a burst (fifty downloads that end
/// together are fifty rows written, then one read of the queue and one plan, not fifty of each).
final class QueueMailbox<Input: Sendable>: Sendable {
    let inputs: AsyncStream<Input>
    private let continuation: AsyncStream<Input>.Continuation
    private let waiting = Atomic<Int>(0)

    init() {
        (inputs, continuation) = AsyncStream.makeStream(of: Input.self)
    }

    /// Hands `input` to the loop.
    func post(_ input: Input) {
        waiting.add(1, ordering: .relaxed)
        continuation.yield(input)
    }

    /// The loop took an input: how many more wait behind it (posted, not yet taken).
    func took() -> Int {
        waiting.subtract(1, ordering: .relaxed).newValue
    }
}
