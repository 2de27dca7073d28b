import Foundation

/// Saving what happens to each download: progress checkpoints, and each state change turned into a
/// row update, a retry with backoff, a failure or a paused queue (full disk), and a ``QueueRunner/Event``.
extension QueueRunner {
    func checkpoint(id: Int64, op: DownloadOperation, force: Bool) {
        let now = Date().timeIntervalSince1970
        let validators = op.validators
        // Once a second, and at once when the first response's validators appear, so a crash right
        // after still resumes exactly.
        let due: Bool = lock.withLock {
            let last = checkpoints[id] ?? 0
            let newValidators = validators != nil && savedValidators[id] != validators
            guard force || newValidators || now - last >= 1 else { return false }
            checkpoints[id] = now
            savedValidators[id] = validators
            return true
        }
        guard due else { return }
        let progress = op.progress
        _ = try? store.update(id: id) {
            $0.bytesReceived = progress.downloadedLength
            $0.bytesExpected = progress.expectedLength
            if let validators { $0.validators = validators }
        }
    }

    func stateChanged(id: Int64, op: DownloadOperation, state: DownloadState, attempts: Int) {
        let progress = op.progress
        let validators = op.validators
        let isStopping = lock.withLock { stopping }
        var finished = true
        var event: Event?
        do {
            switch state {
            case .downloading, .queued:
                finished = false
                try store.update(id: id) { if $0.state != DownloadState.cancelled.name { $0.state = state.name } }
                if state == .downloading { event = .started(id: id, title: op.request.title) }
            case .completed:
                lock.withLock { summary.completed += 1 }
                event = .completed(id: id, title: op.request.title, path: op.finalPath, bytes: progress.downloadedLength)
                try store.update(id: id) {
                    $0.state = state.name
                    $0.bytesReceived = progress.downloadedLength
                    $0.bytesExpected = progress.expectedLength ?? progress.downloadedLength
                    $0.lastError = nil
                    $0.completedAt = Date().timeIntervalSince1970
                    $0.destination = op.finalPath
                    if let validators { $0.validators = validators }
                }
            case .paused:
                // Stopped by us (quit, signal, full disk) stays queued for the next start; a user's pause stays paused.
                let row = try store.download(id: id)
                let userPaused = row?.state == DownloadState.paused.name && !isStopping
                try store.update(id: id) {
                    $0.state = (userPaused || self.lock.withLock({ self.pausedForDisk }) ? DownloadState.paused : .queued).name
                    $0.bytesReceived = progress.downloadedLength
                    if let validators { $0.validators = validators }
                }
                event = .stopped(id: id, title: op.request.title, bytes: progress.downloadedLength)
            case .cancelled:
                try store.update(id: id) {
                    $0.state = state.name
                    $0.bytesReceived = 0
                }
                event = .cancelled(id: id, title: op.request.title)
            case .failed(let reason):
                let error = op.error
                if case .diskFull = error {
                    event = pauseForFullDisk(id: id, reason: reason, progress: progress)
                } else if let error, error.isRetryable, attempts < settings.maxAttempts, !isStopping {
                    let delay = RetryPolicy(base: settings.retryDelay, max: settings.retryMaxDelay)
                        .delay(afterAttempt: attempts, retryAfter: error.retryAfter)
                    try store.update(id: id) {
                        $0.state = DownloadState.queued.name
                        $0.retryAt = Date().timeIntervalSince1970 + delay
                        $0.lastError = reason
                        $0.bytesReceived = progress.downloadedLength
                        if let validators { $0.validators = validators }
                    }
                    event = .retrying(id: id, title: op.request.title, in: delay, reason: reason)
                } else {
                    lock.withLock { summary.failed += 1 }
                    let message = attempts > 1 ? "\(reason) (after \(attempts) attempts)" : reason
                    try store.update(id: id) {
                        $0.state = "failed"
                        $0.lastError = message
                        $0.bytesReceived = progress.downloadedLength
                        if let validators { $0.validators = validators }
                    }
                    event = .failed(id: id, title: op.request.title, reason: message)
                }
            }
        } catch {
            // The store failing is reported by the next sync, which throws.
        }
        if finished {
            let ended = lock.withLock { () -> [ObservationToken] in
                operations[id] = nil
                checkpoints[id] = nil
                savedValidators[id] = nil
                return tokens.removeValue(forKey: id) ?? []
            }
            // Released outside the lock: the tokens end observations of an operation that is done.
            DispatchQueueRelease.later(ended)
            Task {
                await queue.forget(id: Int(id))
                await wakeup.signal()
            }
        }
        if let event {
            log(event, op: op, attempts: attempts)
            onEvent(event)
        }
    }

    private func pauseForFullDisk(id: Int64, reason: String, progress: DownloadProgress) -> Event {
        lock.withLock {
            pausedForDisk = true
            summary.diskFull = true
        }
        _ = try? store.update(id: id) {
            $0.state = DownloadState.paused.name
            $0.lastError = reason
            $0.bytesReceived = progress.downloadedLength
        }
        Task { await queue.pauseAll() }
        return .diskFull(message: reason + " The queue is paused; `podq queue resume` continues it.")
    }
}
