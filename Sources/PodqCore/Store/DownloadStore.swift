import FoundationEssentials
import Glibc
import PodqSQLite

/// The queue's rows (`download`): in a process that runs the queue, written by its ``QueueRunner``
/// only; `podq queue …` commands write their own transactions from other processes.
public struct DownloadStore: StorePart {
    let database: QueueStore
}

extension DownloadStore {
    // MARK: - Queries

    /// Every download, in queue order.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func downloads() throws(StoreError) -> [DownloadRecord] {
        try read { db in try DownloadRecord.all(db) }
    }

    /// One download, or nil.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func download(id: Int64) throws(StoreError) -> DownloadRecord? {
        try read { db in try DownloadRecord.row(db, id: id) }
    }

    /// One download, or nil, without blocking a thread.
    public func download(id: Int64) async throws(StoreError) -> DownloadRecord? {
        try await readAsync { db in try DownloadRecord.row(db, id: id) }
    }

    /// The destinations in use (to keep new names unique).
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func destinations() throws(StoreError) -> Set<String> {
        try read { db in Set(try String.fetchAll(db, sql: "SELECT destination FROM download")) }
    }

    // MARK: - Changes

    /// Changes one download in a transaction and returns it as saved.
    /// - Throws: ``StoreError/noSuchDownload(_:)`` when there is no such id.
    @discardableResult
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func update(id: Int64, _ change: (inout DownloadRecord) -> Void) throws(StoreError) -> DownloadRecord {
        try write { db in
            guard var record = try DownloadRecord.row(db, id: id) else { throw StoreError.noSuchDownload(id) }
            change(&record)
            record.updatedAt = Date().timeIntervalSince1970
            try record.save(db)
            return record
        }
    }

    /// Deletes a download's row (not its files).
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func remove(id: Int64) throws(StoreError) {
        let deleted = try write { db in try DownloadRecord.deleteOne(db, key: id) }
        if !deleted { throw .noSuchDownload(id) }
    }
}
