import FoundationEssentials
import Glibc

/// The database from async code: each synchronous entry point (`@available(*, noasync)`: the compiler refuses it
/// in async code) has this twin of the same name, which runs it on a thread of the store's own
/// (``StorePart/run(_:)``), so the cooperative pool never waits for SQLite or another program's lock.
/// The queue runner's own writes are the pool's async ones (DownloadStore+Runner.swift).
extension QueueStore {
    /// ``reconcile()`` from async code, off the cooperative pool.
    @discardableResult
    public func reconcile() async throws(StoreError) -> Reconciliation {
        try await run { part throws(StoreError) in try part.reconcile() }
    }
}
