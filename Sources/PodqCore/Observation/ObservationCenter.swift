import Dispatch
import FoundationEssentials
import Glibc
import PodqBase
import Synchronization

/// The observer registry of one object, with coalesced delivery.
///
/// Writers call ``valueDidChange()`` as often as they like (once per received chunk): it costs a lock
/// and a clock read. Deliveries happen at most once per ``interval`` (a leading one at the scheduler's
/// next turn, then a trailing one when the interval is over), so an observer sees ~20 changes a second
/// at most, and ``flush()`` delivers at once: owners call it on a final state so the last value always
/// arrives.
///
/// Each observer is only called when its own value differs from the one it was last given. Handlers
/// run on the scheduler's thread (or the one that flushes), never on the writer's, and never two at a
/// time for one center; they may cancel tokens.
public final class ObservationCenter: Sendable {
    /// The shortest time between two coalesced deliveries.
    public let interval: UInt64
    private let scheduler: any ObservationScheduler
    private struct Registry {
        /// In the order they were added: a delivery calls them in that order.
        var entries: [(id: UInt64, entry: any ObservationEntry)] = []
        var nextID: UInt64 = 0
        var lastDelivery: UInt64?
        var trailingScheduled = false
    }
    private let registry = Mutex(Registry())
    /// Held while handlers run: never two deliveries at once. Recursive, because a handler may cause
    /// a change that delivers on the same thread (cancelling an operation flushes).
    private let deliveryLock = RecursiveLock()

    /// - Parameters:
    ///   - interval: the shortest time between deliveries, 50 ms (20 a second) by default.
    ///   - scheduler: the clock and timer; tests pass a manual one.
    public init(interval: Duration = .milliseconds(50), scheduler: any ObservationScheduler = DispatchObservationScheduler()) {
        let (seconds, attoseconds) = interval.components
        self.interval = UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
        self.scheduler = scheduler
    }

    /// Registers an entry and returns the token that ends it.
    func add(_ entry: any ObservationEntry, initial: Bool) -> ObservationToken {
        // Under the delivery lock, so no change can reach the entry before its initial value.
        let id: UInt64 = deliveryLock.withLock {
            let id: UInt64 = registry.withLock {
                $0.nextID += 1
                $0.entries.append(($0.nextID, entry))
                return $0.nextID
            }
            if initial { entry.deliverInitial() }
            return id
        }
        return ObservationToken(center: self, id: id)
    }

    /// Under the delivery lock: a delivery running on another thread ends first, and the next one
    /// no longer has the entry, so no handler call starts once this returns (a handler may cancel its
    /// own or another token: the lock is recursive).
    func remove(_ id: UInt64) {
        deliveryLock.withLock {
            registry.withLock { $0.entries.removeAll { $0.id == id } }
        }
    }

    /// The number of live observations.
    public var count: Int { registry.withLock { $0.entries.count } }

    /// Notes that an observed value may have changed; delivers soon, coalesced, always through the
    /// scheduler: never on the caller's thread (a chunk's write on an event loop runs no observer).
    public func valueDidChange() {
        let now = scheduler.now()
        let interval = self.interval
        let delay: UInt64? = registry.withLock { registry in
            if registry.trailingScheduled { return nil }  // a delivery is on its way: it reads the value then
            registry.trailingScheduled = true
            // Quiet for an interval: at once (the scheduler's next turn); else when the interval is over.
            guard let last = registry.lastDelivery, now &- last < interval else { return 0 }
            return interval - (now &- last)
        }
        if let delay {
            scheduler.schedule(afterNanoseconds: delay) { [weak self] in
                guard let self else { return }
                let now = self.scheduler.now()
                self.registry.withLock {
                    $0.trailingScheduled = false
                    $0.lastDelivery = now
                }
                self.deliver()
            }
        }
    }

    /// Delivers every pending change now, whatever the interval. Call it on a final state.
    public func flush() {
        let now = scheduler.now()
        registry.withLock { $0.lastDelivery = now }
        deliver()
    }

    private func deliver() {
        guard registry.withLock({ !$0.entries.isEmpty }) else { return }
        deliveryLock.withLock {
            // Read under the delivery lock, so a token cancelled before this began is not called; and
            // each entry looked up again before its call, so one that an earlier handler of this
            // delivery cancelled is not called either.
            let current = registry.withLock { $0.entries }
            for (id, entry) in current {
                guard registry.withLock({ $0.entries.contains { $0.id == id } }) else { continue }
                entry.deliverIfChanged()
            }
        }
    }
}

/// Ends an observation when cancelled or released.
public final class ObservationToken: Sendable {
    private weak let center: ObservationCenter?
    private let id: UInt64
    private let cancelled = Mutex(false)

    init(center: ObservationCenter, id: UInt64) {
        self.center = center
        self.id = id
    }

    /// Ends the observation; no handler call starts after this returns. Safe to call twice.
    public func cancel() {
        let first = cancelled.withLock { cancelled in
            defer { cancelled = true }
            return !cancelled
        }
        if first { center?.remove(id) }
    }

    deinit { cancel() }
}

/// A type-erased observer: reads its key path and calls its handler when the value changed.
protocol ObservationEntry: AnyObject, Sendable {
    func deliverInitial()
    func deliverIfChanged()
}
