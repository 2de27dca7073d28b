import FoundationEssentials
import Glibc

/// The queue's rows from async code: each synchronous entry point (`@available(*, noasync)`: the compiler refuses it
/// in async code) has this twin of the same name, which runs it on a thread of the store's own
/// (``StorePart/run(_:)``), so the cooperative pool never waits for SQLite or another program's lock.
/// The queue runner's own writes are the pool's async ones (DownloadStore+Runner.swift).
extension DownloadStore {
    /// ``add(url:title:podcast:destination:folder:)`` from async code, off the cooperative pool.
    @discardableResult
    public func add(url: String, title: String, podcast: String? = nil, destination: String, folder: String? = nil) async throws(StoreError) -> DownloadRecord {
        try await run { part throws(StoreError) in try part.add(url: url, title: title, podcast: podcast, destination: destination, folder: folder) }
    }

    /// ``completedEpisodeDownloads()`` from async code, off the cooperative pool.
    public func completedEpisodeDownloads() async throws(StoreError) -> [CleanupCandidate] {
        try await run { part throws(StoreError) in try part.completedEpisodeDownloads() }
    }

    /// ``downloads()`` from async code, off the cooperative pool.
    public func downloads() async throws(StoreError) -> [DownloadRecord] {
        try await run { part throws(StoreError) in try part.downloads() }
    }

    /// ``destinations()`` from async code, off the cooperative pool.
    public func destinations() async throws(StoreError) -> Set<String> {
        try await run { part throws(StoreError) in try part.destinations() }
    }

    /// ``update(id:_:)`` from async code, off the cooperative pool.
    @discardableResult
    public func update(id: Int64, _ change: @escaping @Sendable (inout DownloadRecord) -> Void) async throws(StoreError) -> DownloadRecord {
        try await run { part throws(StoreError) in try part.update(id: id, change) }
    }
}
