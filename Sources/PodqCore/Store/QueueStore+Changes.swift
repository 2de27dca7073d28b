import Foundation
import GRDB

extension QueueStore {
    /// Applies `event` (pause, resume, cancel, retry) to the stored download `id` through the state
    /// machine and returns the row before and after the change.
    ///
    /// A `downloading` row belongs to the process running the queue: it applies the change to the
    /// transfer within a second. `retry` starts a fresh count of attempts; `resume` and `retry` clear
    /// a pending retry delay.
    /// - Throws: ``StoreError/noSuchDownload(_:)``, or ``StoreError/cannotChange(id:state:action:)``
    ///   when the state does not allow the event.
    @discardableResult
    public func apply(_ event: DownloadEvent, to id: Int64) throws(StoreError) -> (before: DownloadRecord, after: DownloadRecord) {
        try write { db in
            guard var record = try DownloadRecord.fetchOne(db, key: id) else { throw StoreError.noSuchDownload(id) }
            let before = record
            guard let next = DownloadState(storedName: record.state).applying(event) else {
                throw StoreError.cannotChange(id: id, state: record.state, action: event.verb)
            }
            record.state = next.name
            switch event {
            case .retry:
                record.attempts = 0
                record.retryAt = nil
                record.lastError = nil
            case .resume:
                record.retryAt = nil
            case .cancel:
                record.bytesReceived = 0
            default:
                break
            }
            record.updatedAt = Date().timeIntervalSince1970
            try record.update(db)
            return (before, record)
        }
    }

    /// Moves the download `id` one place up (`offset` -1) or down (+1) in the queue, swapping it with
    /// its neighbour. Returns false when it is already first or last.
    @discardableResult
    public func move(id: Int64, by offset: Int) throws(StoreError) -> Bool {
        try write { db in
            let rows = try DownloadRecord.order(Column("position"), Column("id")).fetchAll(db)
            guard let index = rows.firstIndex(where: { $0.id == id }) else { throw StoreError.noSuchDownload(id) }
            let other = index + (offset < 0 ? -1 : 1)
            guard rows.indices.contains(other) else { return false }
            var a = rows[index]
            var b = rows[other]
            // Equal positions (never made by podq, but possible in an old file) still swap in order.
            let (pa, pb) = a.position == b.position ? (b.position + (offset < 0 ? -1 : 1), a.position) : (b.position, a.position)
            a.position = pa
            b.position = pb
            try a.update(db)
            try b.update(db)
            return true
        }
    }
}

extension DownloadState {
    /// The state a stored name stands for (`failed` with no reason); unknown names read as failed.
    public init(storedName: String) {
        switch storedName {
        case "queued": self = .queued
        case "downloading": self = .downloading
        case "paused": self = .paused
        case "cancelled": self = .cancelled
        case "completed": self = .completed
        default: self = .failed(reason: "")
        }
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
}
