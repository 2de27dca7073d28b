import Dispatch
import Foundation
import PodqCore

/// Observes ``DownloadOperation``s and hands out value snapshots of their rows.
///
/// Observers only record the new figures and set ``needsDisplay``; nothing is drawn from a callback.
/// The render loop calls ``snapshot()`` at its frame rate.
public final class DownloadsViewModel: @unchecked Sendable {
    private struct Tracked {
        let operation: DownloadOperation
        let title: String
        var meter = SpeedMeter()
        var tokens: [ObservationToken] = []
    }

    private let lock = NSLock()
    private var tracked: [Int: Tracked] = [:]
    private var order: [Int] = []
    private var dirty = true
    private let clock: @Sendable () -> Double

    /// - Parameter clock: monotonic seconds; tests may inject their own.
    public init(clock: @escaping @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }) {
        self.clock = clock
    }

    /// Starts showing `operation`, under `title` (cleaned of control characters here). An operation
    /// with the id of one already shown (a retry) takes its place in the list.
    public func track(_ operation: DownloadOperation, title: String? = nil) {
        let id = operation.id
        let replaced = lock.withLock {
            if tracked[id] == nil { order.append(id) }
            dirty = true
            return tracked.updateValue(Tracked(operation: operation, title: SafeText.clean(title ?? operation.request.title)), forKey: id)
        }
        replaced?.tokens.forEach { $0.cancel() }
        let progress = operation.observe(\.progress, options: [.initial, .new]) { [weak self] _, change in
            guard let self, let value = change.newValue else { return }
            let now = self.clock()
            self.lock.withLock {
                self.tracked[id]?.meter.record(bytes: value.downloadedLength, at: now)
                self.dirty = true
            }
        }
        let state = operation.observe(\.state, options: [.new]) { [weak self] _, _ in
            guard let self else { return }
            self.lock.withLock { self.dirty = true }
        }
        lock.withLock { tracked[id]?.tokens = [progress, state] }
    }

    /// Stops showing the download `id`.
    public func untrack(id: Int) {
        let removed = lock.withLock {
            order.removeAll { $0 == id }
            dirty = true
            return tracked.removeValue(forKey: id)
        }
        removed?.tokens.forEach { $0.cancel() }
    }

    /// True when something changed since the last ``snapshot()``.
    public var needsDisplay: Bool { lock.withLock { dirty } }

    /// The rows now, in order; clears ``needsDisplay``.
    public func snapshot() -> [DownloadRow] {
        let now = clock()
        return lock.withLock {
            dirty = false
            return order.compactMap { id in
                guard let t = tracked[id] else { return nil }
                let op = t.operation
                let progress = op.progress
                let state = op.state
                let speed = state == .downloading ? t.meter.rate(at: now) : 0
                var eta: Double?
                if let expected = progress.expectedLength, speed > 0, state == .downloading {
                    eta = Double(max(0, expected - progress.downloadedLength)) / speed
                }
                var error: String?
                if case .failed(let reason) = state { error = reason }
                return DownloadRow(id: id, title: t.title, state: state, fraction: progress.fractionCompleted,
                                   received: progress.downloadedLength, expected: progress.expectedLength,
                                   speed: speed, eta: eta, error: error)
            }
        }
    }
}
