import FoundationEssentials
import Glibc

/// What a person does to the queue while it runs (the TUI's keys), each a step of its own: the change
/// is saved in the store first, then applied to the running transfer at once, and the loop wakes.
extension QueueRunner {
    /// Pauses, resumes, cancels or retries the download `id`. Cancelling deletes its partial file.
    /// Resuming also lifts a pause made by a full disk.
    /// - Throws: ``StoreError`` when there is no such download or its state does not allow `event`.
    ///
    /// Returns once a running transfer has stopped: after a cancel its partial file is gone.
    public func perform(_ event: DownloadEvent, id: Int64) async throws(StoreError) {
        let stopping = try await exclusively { () async throws(StoreError) -> Task<Void, Never>? in
            let (before, _) = try await store.queue.apply(event, to: id)
            let run = running[id]
            switch event {
            case .cancel:
                if let run { run.operation.cancel() } else { removePartial(of: before) }
                return run?.task
            case .pause:
                run?.operation.pause()
                return run?.task
            case .resume, .retry:
                machine.resumed()
            default:
                break
            }
            return nil
        }
        wake()
        await stopping?.value
    }

    /// Pauses every queued or running download (`paused: true`), or resumes every paused one, in one
    /// transaction: nothing starts in between.
    /// - Returns: how many downloads changed.
    @discardableResult
    public func setAllPaused(_ paused: Bool) async throws(StoreError) -> Int {
        let (count, stopping) = try await exclusively { () async throws(StoreError) -> (Int, [Task<Void, Never>]) in
            let changed = try await store.queue.applyToAll(paused ? .pause : .resume)
            var stopping: [Task<Void, Never>] = []
            if paused {
                for row in changed {
                    let id = row.id
                    guard let run = running[id] else { continue }
                    run.operation.pause()
                    stopping.append(run.task)
                }
            } else {
                machine.resumed()
            }
            return (changed.count, stopping)
        }
        wake()
        for task in stopping { await task.value }
        return count
    }

    /// Changes how many downloads run at once (at least 1). Lowering it puts the downloads last in
    /// queue order back in line at once, with their partial files kept, so the limit holds now.
    public func setMaxConcurrent(_ value: Int) async {
        await exclusively {
            machine.setLimit(value)
            updateStatus()
            try? await replan()
        }
    }

    /// Changes how many downloads may run at once from one host: raised, more start at once; lowered,
    /// the running ones go on and no other starts from that host until it is under the new cap.
    public func setPerHost(_ value: Int) async {
        await exclusively {
            machine.setPerHost(value)
            connections.setPerHostDownloads(machine.perHost)
            updateStatus()
            try? await replan()
        }
    }

    /// Makes the download `id` the next to start: first in the queue, and queued again when it was
    /// paused, failed or cancelled.
    public func startNext(id: Int64) async throws(StoreError) {
        try await exclusively { () async throws(StoreError) in
            guard let row = try await store.queue.loadDownloads().first(where: { $0.id == id }) else { throw .noSuchDownload(id) }
            switch row.state {
            case .paused: try await store.queue.apply(.resume, to: id)
            case .failed, .cancelled: try await store.queue.apply(.retry, to: id)
            default: break
            }
            try await store.queue.moveToFront(id: id)
        }
        wake()
    }

    /// Moves the download `id` one place up (-1) or down (+1) in the queue.
    @discardableResult
    public func move(id: Int64, by offset: Int) async throws(StoreError) -> Bool {
        let moved = try await exclusively { () async throws(StoreError) -> Bool in try await store.queue.move(id: id, by: offset) }
        wake()
        return moved
    }

    /// Removes the download `id` from the queue: stops it, deletes its partial file, and deletes the
    /// final file too when `deletingFile` (a completed download's file is kept otherwise).
    public func remove(id: Int64, deletingFile: Bool) async throws(StoreError) {
        let stopping = try await exclusively { () async throws(StoreError) -> Task<Void, Never>? in
            let row = try await store.queue.remove(id: id)
            let run = running[id]
            if let run { run.operation.cancel() } else { removePartial(of: row) }
            if deletingFile && row.state == .completed, let folder = folder(row.folderPath),
                let relative = try? folder.relativePath(of: row.destination),
                (try? folder.removeFile(relative, recorded: row.committedFile?.identity)) == true, let episode = row.episodeId
            {
                await store.sync.announceDeleted(episodeIds: [episode])
            }
            return run?.task
        }
        wake()
        await stopping?.value
    }

    /// Removes the downloads of `ids` in one write (the TUI's `C` on a thousand completed rows):
    /// stops the running ones, deletes their partial files, and the completed files too when
    /// `deletingFiles`. Ids already gone are skipped.
    /// - Returns: how many rows were removed.
    @discardableResult
    public func remove(ids: [Int64], deletingFiles: Bool) async throws(StoreError) -> Int {
        let (count, stopping) = try await exclusively { () async throws(StoreError) -> (Int, [Task<Void, Never>]) in
            let rows = try await store.queue.remove(ids: ids)
            var stopping: [Task<Void, Never>] = []
            var deleted: [Int64] = []
            for row in rows {
                let id = row.id
                if let run = running[id] {
                    run.operation.cancel()
                    stopping.append(run.task)
                } else {
                    removePartial(of: row)
                }
                if deletingFiles && row.state == .completed, let folder = folder(row.folderPath),
                    let relative = try? folder.relativePath(of: row.destination),
                    (try? folder.removeFile(relative, recorded: row.committedFile?.identity)) == true, let episode = row.episodeId
                {
                    deleted.append(episode)
                }
            }
            await store.sync.announceDeleted(episodeIds: deleted)
            return (rows.count, stopping)
        }
        wake()
        for task in stopping { await task.value }
        return count
    }

    /// Pauses, resumes, cancels or retries each download of `ids` in one write, as
    /// ``perform(_:id:)`` does one; returns once the running ones it stopped have stopped.
    /// - Returns: the ids the change was refused for, and why.
    public func perform(_ event: DownloadEvent, ids: [Int64]) async throws(StoreError) -> [(id: Int64, error: StoreError)] {
        let (refused, stopping) = try await exclusively { () async throws(StoreError) -> ([(id: Int64, error: StoreError)], [Task<Void, Never>]) in
            var refused: [(id: Int64, error: StoreError)] = []
            var stopping: [Task<Void, Never>] = []
            for (id, outcome) in try await store.queue.apply(event, to: ids) {
                switch outcome {
                case .refused(let error):
                    refused.append((id, error))
                case .changed(let before, _):
                    let run = running[id]
                    switch event {
                    case .cancel:
                        if let run { run.operation.cancel() } else { removePartial(of: before) }
                    case .pause:
                        run?.operation.pause()
                    case .resume, .retry:
                        machine.resumed()
                    default:
                        break
                    }
                    if let run, event == .cancel || event == .pause { stopping.append(run.task) }
                }
            }
            return (refused, stopping)
        }
        wake()
        for task in stopping { await task.value }
        return refused
    }

    /// Puts new downloads on the queue (the TUI queueing an episode): in this process rows are written
    /// here only.
    @discardableResult
    public func add(_ items: [NewDownload]) async throws(StoreError) -> [DownloadRecord] {
        let added = try await exclusively { () async throws(StoreError) -> [DownloadRecord] in try await store.queue.add(items) }
        wake()
        return added
    }

    /// Deletes the partial file of a download that is not running, unless another process holds it.
    /// The rule for a cancelled or removed download's partial, in the process that runs the queue: the
    /// operation holding it deletes it; one no operation holds, the runner deletes (here for a row with
    /// no operation; in the operation's task for one cancelled before it held its partial).
    func removePartial(of row: DownloadRecord) {
        folder(row.folderPath)?.removePartial(of: row.destination)
    }
}
