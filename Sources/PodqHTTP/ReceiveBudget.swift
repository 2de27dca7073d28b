import NIOCore
import Synchronization

/// How large a read each of podq's own connections may make, from a budget they share.
///
/// A connection reserves up to ``largest`` of the budget when it opens and gives it back when it
/// closes; once the budget is spent, a connection still reads up to ``smallest``. One download (or
/// the segments of one) reads 256 KiB at a time — about 20% less CPU than 64 KiB for a 1 GiB file,
/// the same peak memory — and so do up to 64 connections at once: NIO keeps each connection's
/// buffer between reads, and 256 KiB for all of fifty fast downloads took 8% off their CPU for
/// 2.7 MiB more memory (docs/DECISIONS.md, "Reads from a shared budget", and its update of 2026-11-29).
///
/// A read's buffer grows as NIO's adaptive allocator finds data waiting, so a slow connection never
/// holds the whole of its reservation.
final class ReceiveBudget: Sendable {
    /// The most one connection reserves.
    let largest: Int
    /// What a connection reads at most when the budget is spent.
    let smallest: Int
    /// The whole budget.
    let total: Int
    /// What is left of the budget, and how many connections hold a share.
    private let state: Mutex<(left: Int, open: Int)>

    init(total: Int, largest: Int, smallest: Int) {
        precondition(smallest > 0 && smallest <= largest)
        self.total = total
        self.largest = largest
        self.smallest = smallest
        state = Mutex((total, 0))
    }

    /// The budget of podq's media connections: 16 MiB, up to 256 KiB each (64 connections, what
    /// `--jobs` allows), 64 KiB once spent.
    static let shared = ReceiveBudget(total: 16 << 20, largest: 256 << 10, smallest: 64 << 10)

    /// A connection's share: the most it reads at once, and what it took from the budget.
    struct Grant: Equatable {
        /// A power of two (NIO's allocator grows by doubling).
        let readSize: Int
        /// 0 when the budget was spent and the connection reads ``ReceiveBudget/smallest``.
        let taken: Int
        /// How many other connections held a share when this one opened: with ``ReadBatching/crowd``
        /// or more they compete for the CPU, and the connection reads in batches.
        var others = 0
    }

    /// Reserves a share for a new connection; give it back with ``release(_:)`` when it closes.
    func reserve() -> Grant {
        state.withLock { state in
            let others = state.open
            state.open += 1
            var size = largest
            while size > smallest && size > state.left { size /= 2 }
            guard size <= state.left else { return Grant(readSize: smallest, taken: 0, others: others) }
            state.left -= size
            return Grant(readSize: size, taken: size, others: others)
        }
    }

    /// Gives back what ``reserve()`` took.
    func release(_ grant: Grant) {
        state.withLock { state in
            state.left += grant.taken
            state.open -= 1
        }
    }

    /// What is left to reserve.
    var remaining: Int { state.withLock { $0.left } }
}
