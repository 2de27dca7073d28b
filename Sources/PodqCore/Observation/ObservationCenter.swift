import Foundation

/// The observer registry of one object, with coalesced delivery.
///
/// Writers call ``valueDidChange()`` as often as they like (once per received chunk): it costs a lock
/// and a clock read. Deliveries happen at most once per ``interval`` (a leading one at once, then a
/// trailing one when the interval is over), so an observer sees ~20 changes a second at most, and
/// ``flush()`` delivers at once: owners call it on a final state so the last value always arrives.
///
/// Each observer is only called when its own value differs from the one it was last given. Handlers
/// run on the thread that delivers, never two at a time for one center; they may cancel tokens.
public final class ObservationCenter: @unchecked Sendable {
    /// The shortest time between two coalesced deliveries.
    public let interval: UInt64
    private let scheduler: any ObservationScheduler
    private let lock = NSLock()
    private let deliveryLock = NSRecursiveLock()
    private var entries: [UInt64: any ObservationEntry] = [:]
    private var nextID: UInt64 = 0
    private var lastDelivery: UInt64?
    private var trailingScheduled = false

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
            let id: UInt64 = lock.withLock {
                nextID += 1
                entries[nextID] = entry
                return nextID
            }
            if initial { entry.deliverInitial() }
            return id
        }
        return ObservationToken(center: self, id: id)
    }

    func remove(_ id: UInt64) {
        lock.withLock { _ = entries.removeValue(forKey: id) }
    }

    /// The number of live observations.
    public var count: Int { lock.withLock { entries.count } }

    /// Notes that an observed value may have changed; delivers now or soon, coalesced.
    public func valueDidChange() {
        let now = scheduler.now()
        let action: (deliverNow: Bool, scheduleIn: UInt64?) = lock.withLock {
            if let last = lastDelivery, now &- last < interval {
                if trailingScheduled { return (false, nil) }
                trailingScheduled = true
                return (false, interval - (now &- last))
            }
            lastDelivery = now
            return (true, nil)
        }
        if action.deliverNow {
            deliver()
        } else if let delay = action.scheduleIn {
            scheduler.schedule(afterNanoseconds: delay) { [weak self] in
                guard let self else { return }
                self.lock.withLock {
                    self.trailingScheduled = false
                    self.lastDelivery = self.scheduler.now()
                }
                self.deliver()
            }
        }
    }

    /// Delivers every pending change now, whatever the interval. Call it on a final state.
    public func flush() {
        lock.withLock { lastDelivery = scheduler.now() }
        deliver()
    }

    private func deliver() {
        let current = lock.withLock { Array(entries.values) }
        guard !current.isEmpty else { return }
        deliveryLock.withLock {
            for entry in current { entry.deliverIfChanged() }
        }
    }
}

/// Ends an observation when cancelled or released.
public final class ObservationToken: @unchecked Sendable {
    private weak var center: ObservationCenter?
    private let id: UInt64
    private let lock = NSLock()
    private var cancelled = false

    init(center: ObservationCenter, id: UInt64) {
        self.center = center
        self.id = id
    }

    /// Ends the observation; no handler call starts after this returns. Safe to call twice.
    public func cancel() {
        let first = lock.withLock {
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
