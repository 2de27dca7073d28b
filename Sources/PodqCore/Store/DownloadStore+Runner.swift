import FoundationEssentials
import Glibc
import PodqSQLite

/// The queue runner's reads and writes: the pool's async ones, so the runner's actor never blocks a
/// thread on the database, and each change a read-modify-write in one transaction, so a change made
/// meanwhile by another process (`podq queue pause 3`) is seen, never overwritten.
extension DownloadStore {
    /// Every download, in queue order.
    public func loadDownloads() async throws(StoreError) -> [DownloadRecord] {
        try await readAsync { db in try DownloadRecord.all(db) }
    }

    /// Reads the row `id`, lets `decide` say what it becomes (nil: leave it as it is), and saves that,
    /// in one transaction.
    /// - Returns: the row before and after (nil after: unchanged), or nil when there is no such row.
    @discardableResult
    public func modify(id: Int64, _ decide: @escaping @Sendable (DownloadRecord) -> DownloadRecord?) async throws(StoreError)
        -> (before: DownloadRecord, after: DownloadRecord?)?
    {
        try await modify(id: id) { row in (decide(row), ()) }.map { ($0.before, $0.after) }
    }

    /// ``modify(id:_:)`` where `decide` also returns what it decided.
    public func modify<T: Sendable>(id: Int64, _ decide: @escaping @Sendable (DownloadRecord) -> (DownloadRecord?, T)) async throws(StoreError)
        -> (before: DownloadRecord, after: DownloadRecord?, result: T)?
    {
        try await writeAsync { db in
            guard let record = try DownloadRecord.row(db, id: id) else { return nil }
            let (change, result) = decide(record)
            guard var changed = change else { return (record, nil, result) }
            changed.updatedAt = Date().timeIntervalSince1970
            try changed.save(db)
            return (record, changed, result)
        }
    }

    /// Saves the bytes received (and validators, when they changed) of running downloads, in one
    /// transaction; rows no longer `downloading` are left alone.
    public func saveProgress(_ items: [Int64: (progress: DownloadProgress, validators: ResourceValidators?)]) async throws(StoreError) {
        guard !items.isEmpty else { return }
        let now = Date().timeIntervalSince1970
        try await writeAsync { db in
            for (id, item) in items {
                guard var record = try DownloadRecord.row(db, id: id), record.state == .downloading else { continue }
                record.bytesReceived = item.progress.downloadedLength
                record.bytesExpected = item.progress.expectedLength ?? record.bytesExpected
                if let validators = item.validators { record.validators = validators }
                record.updatedAt = now
                try record.save(db)
            }
        }
    }

    /// ``apply(_:to:)`` without blocking a thread.
    @discardableResult
    public func apply(_ event: DownloadEvent, to id: Int64) async throws(StoreError) -> (before: DownloadRecord, after: DownloadRecord) {
        try await writeAsync { db in
            guard let record = try DownloadRecord.row(db, id: id) else { throw StoreError.noSuchDownload(id) }
            guard let changed = try Self.apply(event, to: record, db: db) else {
                throw StoreError.cannotChange(id: id, state: record.state.rawValue, action: event.verb)
            }
            return (record, changed)
        }
    }

    /// ``applyToAll(_:)`` without blocking a thread.
    @discardableResult
    public func applyToAll(_ event: DownloadEvent) async throws(StoreError) -> [DownloadRecord] {
        try await writeAsync { db in try Self.applyToAll(event, db: db) }
    }

    /// ``move(id:by:)`` without blocking a thread.
    @discardableResult
    public func move(id: Int64, by offset: Int) async throws(StoreError) -> Bool {
        try await writeAsync { db in try Self.move(id: id, by: offset, db: db) }
    }

    /// ``moveToFront(id:)`` without blocking a thread.
    public func moveToFront(id: Int64) async throws(StoreError) {
        try await writeAsync { db in try Self.moveToFront(id: id, db: db) }
    }

    /// What a change asked of many downloads did to each (``apply(_:to:)-([Int64])``).
    public enum BatchOutcome: Sendable, Equatable {
        /// Changed: the row before and after.
        case changed(before: DownloadRecord, after: DownloadRecord)
        /// Not changed, and why (no such download, or its state does not allow the change).
        case refused(StoreError)
    }

    /// Applies `event` to each download of `ids`, in one transaction: a bulk action holds the
    /// database for one write, not one per row. Each id gets its outcome, in the order given.
    @discardableResult
    public func apply(_ event: DownloadEvent, to ids: [Int64]) async throws(StoreError) -> [(id: Int64, outcome: BatchOutcome)] {
        try await writeAsync { db in
            try ids.map { id in
                guard let record = try DownloadRecord.row(db, id: id) else { return (id, .refused(.noSuchDownload(id))) }
                guard let changed = try Self.apply(event, to: record, db: db) else {
                    return (id, .refused(.cannotChange(id: id, state: record.state.rawValue, action: event.verb)))
                }
                return (id, .changed(before: record, after: changed))
            }
        }
    }

    /// Deletes the rows of `ids` that exist, in one transaction; returns them as they were (not
    /// their files), in the order given.
    @discardableResult
    public func remove(ids: [Int64]) async throws(StoreError) -> [DownloadRecord] {
        try await writeAsync { db in
            try ids.compactMap { id in
                guard let record = try DownloadRecord.row(db, id: id) else { return nil }
                try record.delete(db)
                return record
            }
        }
    }

    /// Deletes a download's row; returns it as it was (not its files).
    @discardableResult
    public func remove(id: Int64) async throws(StoreError) -> DownloadRecord {
        try await writeAsync { db in
            guard let record = try DownloadRecord.row(db, id: id) else { throw StoreError.noSuchDownload(id) }
            try record.delete(db)
            return record
        }
    }
}
