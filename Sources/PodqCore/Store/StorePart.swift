import GRDB

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
