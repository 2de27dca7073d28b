import FoundationEssentials
import Glibc
import PodqSQLite

extension DownloadStore {
    /// Applies `event` (pause, resume, cancel, retry) to the stored download `id` through the state
    /// machine and returns the row before and after the change.
    ///
    /// A `downloading` row belongs to the process running the queue: it applies the change to the
    /// transfer within a second. `retry` starts a fresh count of attempts; `resume` and `retry` clear
    /// a pending retry delay.
    /// - Throws: ``StoreError/noSuchDownload(_:)``, or ``StoreError/cannotChange(id:state:action:)``
    ///   when the state does not allow the event.
    @discardableResult
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func apply(_ event: DownloadEvent, to id: Int64) throws(StoreError) -> (before: DownloadRecord, after: DownloadRecord) {
        try write { db in
            guard let record = try DownloadRecord.row(db, id: id) else { throw StoreError.noSuchDownload(id) }
            guard let changed = try Self.apply(event, to: record, db: db) else {
                throw StoreError.cannotChange(id: id, state: record.state.rawValue, action: event.verb)
            }
            return (record, changed)
        }
    }

    /// Applies `event` to every download whose state allows it, in one transaction (pause all,
    /// resume all); returns the rows changed, as they were before.
    @discardableResult
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func applyToAll(_ event: DownloadEvent) throws(StoreError) -> [DownloadRecord] {
        try write { db in try Self.applyToAll(event, db: db) }
    }

    static func applyToAll(_ event: DownloadEvent, db: Database) throws -> [DownloadRecord] {
        let rows = try DownloadRecord.all(db)
        return try rows.filter { try apply(event, to: $0, db: db) != nil }
    }

    /// `record` after `event`, saved; nil (and nothing saved) when its state does not allow it.
    static func apply(_ event: DownloadEvent, to record: DownloadRecord, db: Database) throws -> DownloadRecord? {
        guard let next = record.state.applying(event) else { return nil }
        var record = record
        record.state = next
        switch event {
        case .retry:
            record.attempts = 0
            record.retryAt = nil
            record.lastError = nil
        case .resume:
            record.retryAt = nil
        case .cancel:
            record.bytesReceived = 0
            record.segments = nil
        default:
            break
        }
        record.updatedAt = Date().timeIntervalSince1970
        try record.save(db)
        return record
    }

    /// Moves the download `id` one place up (`offset` -1) or down (+1) in the queue, swapping it with
    /// its neighbour. Returns false when it is already first or last.
    @discardableResult
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func move(id: Int64, by offset: Int) throws(StoreError) -> Bool {
        try write { db in try Self.move(id: id, by: offset, db: db) }
    }

    static func move(id: Int64, by offset: Int, db: Database) throws -> Bool {
        let rows = try DownloadRecord.all(db)
        guard let index = rows.firstIndex(where: { $0.id == id }) else { throw StoreError.noSuchDownload(id) }
        let other = index + (offset < 0 ? -1 : 1)
        guard rows.indices.contains(other) else { return false }
        var a = rows[index]
        var b = rows[other]
        // Equal positions (never made by podq, but possible in an old file) still swap in order.
        let (pa, pb) = a.position == b.position ? (b.position + (offset < 0 ? -1 : 1), a.position) : (b.position, a.position)
        a.position = pa
        b.position = pb
        try a.save(db)
        try b.save(db)
        return true
    }

    /// Moves a download to the front of the queue.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func moveToFront(id: Int64) throws(StoreError) {
        try write { db in try Self.moveToFront(id: id, db: db) }
    }

    static func moveToFront(id: Int64, db: Database) throws {
        let first = try Int64.fetchOne(db, sql: "SELECT MIN(position) FROM download") ?? 0
        try db.execute(sql: "UPDATE download SET position = ? WHERE id = ?", arguments: [first - 1, id])
        if db.changesCount == 0 { throw StoreError.noSuchDownload(id) }
    }
}

extension DownloadEvent {
    /// The past participle a message uses: `paused`, `resumed`, `cancelled`, `queued again`.
    public var verb: String {
        switch self {
        case .cancel: "cancelled"
        case .pause: "paused"
        case .resume: "resumed"
        case .retry: "retried"
        case .start: "started"
        case .finish: "finished"
        case .fail: "failed"
        }
    }

    /// The change as it goes on, for a line said while a bulk action runs ("cancelling 3 downloads…").
    public var doing: String {
        switch self {
        case .cancel: "cancelling"
        case .pause: "pausing"
        case .resume: "resuming"
        case .retry: "retrying"
        case .start: "starting"
        case .finish: "finishing"
        case .fail: "failing"
        }
    }
}
