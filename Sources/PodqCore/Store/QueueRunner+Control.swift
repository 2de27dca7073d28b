import Foundation

/// What a person does to the queue while it runs (the TUI's keys): each change is saved in the store
/// first, then applied to the running transfer at once, without waiting for the next poll.
extension QueueRunner {
    /// The number of downloads that may run at once.
    public var maxConcurrent: Int { lock.withLock { limit } }

    /// The number of downloads running now.
    public var runningCount: Int { lock.withLock { operations.count } }

    /// Pauses, resumes, cancels or retries the download `id`. Cancelling deletes its partial file.
    /// Resuming also lifts a pause made by a full disk.
    /// - Throws: ``StoreError`` when there is no such download or its state does not allow `event`.
    public func perform(_ event: DownloadEvent, id: Int64) throws(StoreError) {
        let (before, _) = try store.apply(event, to: id)
        let op = lock.withLock { operations[id] }
        switch event {
        case .cancel:
            if let op { op.cancel() } else { unlink(before.partialPath) }
        case .pause:
            op?.pause()
        case .resume, .retry:
            lock.withLock { pausedForDisk = false }
        default:
            break
        }
        signal()
    }

    /// Changes how many downloads run at once (at least 1). Lowering it puts the downloads last in
    /// queue order back in line at once, with their partial files kept, so the limit holds now.
    public func setMaxConcurrent(_ value: Int) {
        let value = max(1, value)
        let excess: [DownloadOperation] = lock.withLock {
            limit = value
            let running = operations.sorted { (positions[$0.key] ?? $0.key, $0.key) < (positions[$1.key] ?? $1.key, $1.key) }
            return running.dropFirst(value).map(\.value)
        }
        // Stopped without a user's pause in the store, they are saved as queued (see stateChanged).
        for op in excess { op.pause() }
        Task {
            await queue.setMaxConcurrent(value)
            await wakeup.signal()
        }
    }

    /// Pauses every queued or running download (`paused: true`), or resumes every paused one.
    /// - Returns: how many downloads changed.
    @discardableResult
    public func setAllPaused(_ paused: Bool) throws(StoreError) -> Int {
        let event: DownloadEvent = paused ? .pause : .resume
        var changed = 0
        for row in try store.downloads() where DownloadState(storedName: row.state).applying(event) != nil {
            guard let id = row.id else { continue }
            try perform(event, id: id)
            changed += 1
        }
        if !paused { lock.withLock { pausedForDisk = false } }
        signal()
        return changed
    }

    /// Makes the download `id` the next to start: first in the queue, and queued again when it was
    /// paused, failed or cancelled.
    public func startNext(id: Int64) throws(StoreError) {
        guard let row = try store.download(id: id) else { throw .noSuchDownload(id) }
        switch DownloadState(storedName: row.state) {
        case .paused: try perform(.resume, id: id)
        case .failed, .cancelled: try perform(.retry, id: id)
        default: break
        }
        try store.moveToFront(id: id)
        signal()
    }

    /// Moves the download `id` one place up (-1) or down (+1) in the queue.
    @discardableResult
    public func move(id: Int64, by offset: Int) throws(StoreError) -> Bool {
        defer { signal() }
        return try store.move(id: id, by: offset)
    }

    /// Removes the download `id` from the queue: stops it, deletes its partial file, and deletes the
    /// final file too when `deletingFile` (a completed download's file is kept otherwise).
    public func remove(id: Int64, deletingFile: Bool) throws(StoreError) {
        guard let row = try store.download(id: id) else { throw .noSuchDownload(id) }
        lock.withLock { operations[id] }?.cancel()
        try store.remove(id: id)
        unlink(row.partialPath)
        if deletingFile && row.state == DownloadState.completed.name { unlink(row.destination) }
        signal()
    }

    /// Wakes the loop so a change is picked up now rather than at the next poll.
    public func signal() {
        Task { await wakeup.signal() }
    }
}
