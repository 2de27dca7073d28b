import FoundationEssentials
import Glibc
import Logging
import PodqBase
import PodqHTTP

/// The loop's steps: read the store and carry out the plan, save what operations report, and turn an
/// operation's end into its row's next state.
extension QueueRunner {
    /// A look at the queue: the machine says whether to read the rows; the plan it makes of them is
    /// carried out here, in its order (stops, starts, the timer, the checkpoint).
    func replan() async throws(StoreError) {
        defer { shared.withLock { $0.plans += 1 } }
        let now = clock.now
        let stamp = try await store.changeStamp()
        var actions = machine.look(now: now, stamp: stamp, anyRunning: !running.isEmpty)
        var byID: [Int64: DownloadRecord] = [:]
        while !actions.isEmpty {
            let action = actions.removeFirst()
            switch action {
            case .readRows:
                let rows = try await store.queue.loadDownloads()
                observers.onSync(rows)
                byID = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
                actions = machine.plan(rows: rows, running: running.mapValues(\.host), now: now) + actions
            case .stop(let id, .cancel):
                running[id]?.operation.cancel()
            case .stop(let id, .pause):
                running[id]?.operation.pause()
            case .start(let id):
                if let row = byID[id] { try await start(row, now: now) }
            case .setTimer(let time):
                setTimer(at: time)
            case .cancelTimer:
                timer?.cancel()
                timer = nil
            case .checkpoint:
                try await checkpoint()
            }
        }
        updateStatus()
    }

    /// Sets the plan's timer: one wake at `time`, replacing the one set before.
    private func setTimer(at time: Double) {
        timer?.cancel()
        let mailbox = self.mailbox, clock = self.clock
        let seconds = time - clock.now
        timer = Task {
            do { try await clock.sleep(seconds: seconds) } catch { return }
            mailbox.post(.due)
        }
    }

    /// Marks the row `downloading` (only if it is still queued and due: another process may have
    /// paused it since the read) and starts its operation.
    private func start(_ row: DownloadRecord, now: Double) async throws(StoreError) {
        let id = row.id
        guard let url = URL(string: row.url) else {
            let reason = ErrorText.describe(DownloadError.invalidURL(row.url))
            try await store.queue.modify(id: id) { row in
                guard row.state == .queued else { return nil }
                var failed = row
                failed.state = .failed
                failed.lastError = reason
                return failed
            }
            logger.error("download failed", metadata: ["id": "\(id)", "url": "\(row.url)", "cause": "invalid URL"])
            return
        }
        let claimed = try await store.queue.modify(id: id) { row in
            guard row.state == .queued, (row.retryAt ?? 0) <= now else { return nil }
            var started = row
            started.state = .downloading
            started.attempts += 1
            started.retryAt = nil
            started.committedFile = nil
            return started
        }
        guard let saved = claimed?.after else { return }
        var log = logger
        log[metadataKey: "id"] = "\(id)"
        let mailbox = self.mailbox
        let hooks = DownloadHooks(
            save: { [weak self] event in await self?.save(event, of: id) },
            willCommit: { [weak self] identity, path in await self?.recordCommit(id: id, identity: identity, path: path) })
        var request = saved.request(url: url)
        if saved.episodeId != nil { request.access = await access(saved) }
        let folder = self.folder(saved.folderPath)
        let op = DownloadOperation(
            id: Int(id), request: request, transport: transport,
            folder: folder, configuration: downloadConfiguration(logger: log, access: request.access),
            hooks: hooks)
        observers.onOperation(op)
        emit(.started(id: id, title: saved.title), op: op, attempts: saved.attempts)
        let task = Task {
            // A cancelled one deleted the partial it held; one cancelled before it held it (an earlier
            // attempt's) goes now, before the step that saves its end: whoever awaits this task finds
            // it gone.
            if await op.start() == .cancelled { _ = folder?.removePartial(of: op.destination) }
            mailbox.post(.finished(id))
        }
        running[id] = Running(operation: op, host: QueuePlanner.host(of: saved.url), task: task)
    }

    /// The download folder at `path`, opened once; nil when it cannot be (the operation then says why).
    func folder(_ path: String) -> DownloadFolder? {
        if let open = folders[path] { return open }
        let opened = try? DownloadFolder(path: path)
        folders[path] = opened
        return opened
    }

    /// Saves the running downloads' bytes (and validators) in one transaction.
    func checkpoint() async throws(StoreError) {
        var items: [Int64: (progress: DownloadProgress, validators: ResourceValidators?)] = [:]
        for (id, run) in running { items[id] = (run.operation.progress, run.operation.validators) }
        try await store.queue.saveProgress(items)
    }

    /// Saves what an operation reported, before it writes on (``DownloadHooks/save``): a crash right
    /// after still resumes exactly.
    func save(_ event: DownloadOperation.Event, of id: Int64) async {
        await exclusively {
            guard let op = running[id]?.operation else { return }
            switch event {
            case .claimed(let destination):
                _ = try? await store.queue.modify(id: id) { row in
                    guard row.state == .downloading else { return nil }
                    var moved = row
                    moved.destination = destination
                    return moved
                }
            case .responded(let validators, let resumedAt):
                let progress = op.progress
                _ = try? await store.queue.modify(id: id) { row in
                    guard row.state == .downloading else { return nil }
                    var saved = row
                    saved.validators = validators
                    saved.bytesReceived = progress.downloadedLength
                    saved.bytesExpected = progress.expectedLength ?? saved.bytesExpected
                    return saved
                }
                if let resumedAt { emit(.resumed(id: id, title: op.request.title, at: resumedAt), op: op, attempts: nil) }
            case .verified(let integrity):
                _ = try? await store.queue.modify(id: id) { row in
                    guard row.state == .downloading else { return nil }
                    var saved = row
                    saved.integrity = integrity
                    return saved
                }
            case .notice(let text):
                emit(.note(id: id, title: op.request.title, text: SafeText.clean(text)), op: op, attempts: nil)
            case .segments(let map):
                _ = try? await store.queue.modify(id: id) { row in
                    // Also as a pause, a quit or a failure stops it: its row has left `downloading` by then,
                    // and the map saved as it stops is what the partial holds (skipped, the last second was
                    // fetched again and the bar went back). A cancelled row's partial goes: no map.
                    guard row.state != .cancelled && row.state != .completed else { return nil }
                    var saved = row
                    saved.segments = map?.text
                    if let map { saved.bytesReceived = map.downloaded }
                    return saved
                }
            }
        }
    }

    /// Records the file a download is about to commit, before the rename (``DownloadHooks/willCommit``).
    func recordCommit(id: Int64, identity: FileIdentity, path: String) async {
        await exclusively {
            _ = try? await self.store.queue.modify(id: id) { row in
                guard row.state == .downloading else { return nil }
                var saved = row
                saved.committedFile = (path, identity)
                return saved
            }
        }
    }

    /// Turns the end of the operation `id` into its row's next state (``OutcomeDecision``), saves it,
    /// and says what happened.
    func finish(_ id: Int64) async throws(StoreError) {
        guard let run = running.removeValue(forKey: id) else { return }
        updateStatus()
        let op = run.operation
        let ended = op.state, error = op.error, progress = op.progress, validators = op.validators, path = op.finalPath
        let settings = self.settings
        let holding = machine.hold
        let now = clock.now
        let policy = RetryPolicy(base: settings.retryDelay, max: settings.retryMaxDelay)
        let jitter = Double.random(in: 0.5...1.5)
        let decided = try await store.queue.modify(id: id) { row in
            let decision = OutcomeDecision.decide(
                OutcomeDecision.Input(
                    row: row, ended: ended, error: error, progress: progress, validators: validators,
                    finalPath: path, maxAttempts: settings.maxAttempts, hold: holding, now: now)
            ) { attempt, retryAfter in policy.delay(afterAttempt: attempt, retryAfter: retryAfter, jitter: jitter) }
            return (decision.row, decision.outcome)
        }
        let title = op.request.title
        let attempts = decided?.before.attempts ?? 0
        // No row: it was removed while it ran.
        switch decided?.result ?? .cancelled {
        case .completed:
            summary.completed += 1
            let problem = op.integrity?.problem
            if problem != nil { summary.unverified += 1 }
            var final = path
            if let old = decided?.after?.replaces ?? decided?.before.replaces {
                let replaced = await replace(old, by: id, at: path)
                final = replaced.path
                // Both files kept: said where the user looks, not only in the log.
                if let note = replaced.note { emit(.note(id: id, title: title, text: note), op: op, attempts: attempts) }
            }
            emit(.completed(id: id, title: title, path: final, bytes: progress.downloadedLength, unverified: problem), op: op, attempts: attempts)
        case .stopped:
            emit(.stopped(id: id, title: title, bytes: progress.downloadedLength), op: op, attempts: attempts)
        case .cancelled:
            emit(.cancelled(id: id, title: title), op: op, attempts: attempts)
        case .retrying(let delay, let reason):
            emit(.retrying(id: id, title: title, in: delay, reason: reason), op: op, attempts: attempts)
        case .failed(let reason):
            summary.failed += 1
            emit(.failed(id: id, title: title, reason: reason), op: op, attempts: attempts)
        case .diskFull(let reason):
            machine.diskFull()
            summary.diskFull = true
            for other in running.values { other.operation.pause() }
            emit(.diskFull(message: reason + " The queue is paused; `podq queue resume` continues it."), op: op, attempts: attempts)
        }
    }

    /// Logs `event` and tells the observers.
    func emit(_ event: Event, op: DownloadOperation, attempts: Int?) {
        log(event, op: op, attempts: attempts ?? 0)
        observers.onEvent(event)
    }
}

extension QueueRunner {
    /// How this run's downloads behave: the shared connections, the checksum, and a SHA-256 of every
    /// file when an on-complete hook is set (its `PODQ_SHA256`).
    func downloadConfiguration(logger: Logger, access: PodcastAccess?) -> DownloadConfiguration {
        var configuration = DownloadConfiguration(logger: logger, connections: connections)
        configuration.pacing = pacing
        configuration.checksum = settings.checksum
        if settings.onComplete != nil { configuration.extraDigests.insert(.sha256) }
        configuration.extraDigests.formUnion(access?.digests ?? [])
        return configuration
    }
}

extension QueueRunner {
    /// `podq queue add --replace`: the download `id` just completed at `path` in place of the completed
    /// download `old`. The old file is deleted (the file podq wrote there, also when it changed since:
    /// the corrupted file `podq verify` found, which is what --replace is asked to fix), the new one takes
    /// its name (never over another file), and the old row goes. Returns where the new file is, and a
    /// note when both files were kept (a file podq did not write holds the old name): nothing is lost.
    func replace(_ old: Int64, by id: Int64, at path: String) async -> (path: String, note: String?) {
        guard let rows = try? await store.queue.loadDownloads(), let previous = rows.first(where: { $0.id == old }), previous.state == .completed,
            let current = rows.first(where: { $0.id == id }), let folder = folder(current.folderPath),
            let newRelative = try? folder.relativePath(of: path)
        else { return (path, nil) }
        var final = path
        do {
            let oldFolder = previous.folderPath == current.folderPath ? folder : try DownloadFolder(path: previous.folderPath)
            let oldRelative = try oldFolder.relativePath(of: previous.destination)
            // Only the file podq downloaded for the old row: anything else at its name (the user's own) stays,
            // and the new file keeps its own name.
            guard try oldFolder.removeFile(oldRelative, recorded: previous.committedFile?.identity, changedInPlace: true) else {
                logger.warning(
                    "replace: the old name holds a file podq did not write; both kept",
                    metadata: ["id": "\(id)", "replaced": "\(old)", "file": "\(previous.destination)"])
                return (
                    final,
                    "\(SafeText.clean(previous.destination)) is not the file podq downloaded there (another file took its name); both are kept: the new file is \(SafeText.clean(final))"
                )
            }
            if oldFolder === folder, oldRelative != newRelative, try folder.rename(newRelative, to: oldRelative) {
                let destination = folder.absolute(oldRelative)
                final = destination
                _ = try await store.queue.modify(id: id) { row in
                    var moved = row
                    moved.destination = destination
                    return moved
                }
            }
            _ = try await store.queue.remove(id: old)
            logger.info("replaced an earlier download", metadata: ["id": "\(id)", "replaced": "\(old)", "file": "\(final)"])
            return (final, nil)
        } catch {
            logger.error("could not replace an earlier download", metadata: ["id": "\(id)", "replaced": "\(old)", "reason": "\(error)"])
            return (
                final,
                "could not replace \(SafeText.clean(previous.destination)) (\(SafeText.clean(ErrorText.describe(error)))); both are kept: the new file is \(SafeText.clean(final))"
            )
        }
    }
}
