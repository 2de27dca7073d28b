import Dispatch
import PodqSQLite
import Synchronization

/// One owner's part of the database (``QueueStore``): the queue's rows (``DownloadStore``), the
/// library (``LibraryStore``: podcasts, episodes, their notes and the ledger) and what waits for the
/// sync server (``SyncStore``). Each reads and writes through the one database it is a part of.
protocol StorePart: Sendable {
    var database: QueueStore { get }
}

extension StorePart {
    /// The database file.
    public var path: String { database.path }

    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T { try database.read(body) }
    func write<T>(_ body: (Database) throws -> T) throws(StoreError) -> T { try database.write(body) }
    func readAsync<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        try await database.readAsync(body)
    }
    func writeAsync<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        try await database.writeAsync(body)
    }

    /// Runs `body`, a use of the part's synchronous API, on a thread of the store's own and waits
    /// for it without holding a thread of the cooperative pool (two threads on two cores): what the
    /// async twins of the synchronous entry points are made of.
    func run<T: Sendable>(_ body: @escaping @Sendable (Self) throws(StoreError) -> T) async throws(StoreError) -> T {
        try await database.run { _ throws(StoreError) in try body(self) }
    }
}

extension QueueStore {
    /// Where the async twins run the synchronous API: four serial queues, taken in turn. Serial
    /// queues get threads of their own from Dispatch (as the pool's own queues do); a concurrent queue would
    /// take the threads of Dispatch's global pool, which on Linux also runs Swift's tasks, so writes
    /// waiting for another program's lock (``LockWait``) would starve them.
    private static let lanes = (0..<4).map { DispatchQueue(label: "podq.store.\($0)", qos: .userInitiated) }
    private static let nextLane = Atomic<Int>(0)

    /// ``StorePart/run(_:)`` for the database as a whole.
    func run<T: Sendable>(_ body: @escaping @Sendable (QueueStore) throws(StoreError) -> T) async throws(StoreError) -> T {
        let lane = Self.lanes[Self.nextLane.add(1, ordering: .relaxed).newValue % Self.lanes.count]
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, StoreError>, Never>) in
            lane.async { continuation.resume(returning: Result { () throws(StoreError) -> T in try body(self) }) }
        }
        return try result.get()
    }
}

/// The library: podcasts, their episodes, the episodes' show notes (and their search index) and the
/// ledger of episodes never to queue again.
public struct LibraryStore: StorePart {
    let database: QueueStore
}

/// The sync account and the changes waiting for its server (`sync_change`), and the plays received.
public struct SyncStore: StorePart {
    let database: QueueStore
}

extension QueueStore {
    /// The queue's rows.
    public var queue: DownloadStore { DownloadStore(database: self) }
    /// Podcasts, episodes, notes, the ledger.
    public var library: LibraryStore { LibraryStore(database: self) }
    /// The sync account and its waiting changes.
    public var sync: SyncStore { SyncStore(database: self) }
}
