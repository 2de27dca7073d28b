import Foundation
import Logging

/// Runs the stored queue until nothing is runnable, saving every state change when it happens.
///
/// It polls the store twice a second, so downloads added, paused or cancelled by another process
/// (`podq queue …`) are picked up within a second. Temporary failures are retried with exponential
/// backoff and jitter (honouring `Retry-After`), keeping the partial file; a full disk pauses the queue.
/// Hold the ``HomeLock`` before running one.
public final class QueueRunner: @unchecked Sendable {
    /// Something worth a line of output.
    public enum Event: Sendable, Equatable {
        case started(id: Int64, title: String)
        case resumed(id: Int64, title: String, at: Int64)
        case completed(id: Int64, title: String, path: String, bytes: Int64)
        case failed(id: Int64, title: String, reason: String)
        case retrying(id: Int64, title: String, in: Double, reason: String)
        /// Stopped with its partial file kept (quit, signal, a pause).
        case stopped(id: Int64, title: String, bytes: Int64)
        case cancelled(id: Int64, title: String)
        case diskFull(message: String)
    }

    /// How the run ended.
    public struct Summary: Sendable, Equatable {
        public var completed = 0
        public var failed = 0
        public var diskFull = false
        public var interrupted = false
    }

    let store: QueueStore
    let settings: Settings
    let transport: any HTTPTransport
    let queue: DownloadQueue
    let wakeup = Wakeup()
    let lock = NSLock()
    var operations: [Int64: DownloadOperation] = [:]
    var tokens: [Int64: [ObservationToken]] = [:]
    var checkpoints: [Int64: Double] = [:]
    var savedValidators: [Int64: ResourceValidators] = [:]
    var summary = Summary()
    var stopping = false
    var pausedForDisk = false
    var limit: Int
    var positions: [Int64: Int64] = [:]
    private var _waitingForHost = 0
    var partialsRemoved: Set<Int64> = []

    /// Called with each operation the runner creates, before it starts (to show it).
    public var onOperation: @Sendable (DownloadOperation) -> Void = { _ in }
    /// Called with what happens to each download, on the thread that saw it.
    public var onEvent: @Sendable (Event) -> Void = { _ in }
    /// Called with every download, in queue order, each time the runner reads the store (twice a
    /// second, and at once after a change): what a TUI lists.
    public var onSync: @Sendable ([DownloadRecord]) -> Void = { _ in }
    /// Receives a line for each download's start, resume, end, retry and failure (with its cause and
    /// the URLs it went through), and the requests at debug level; writes nothing by default.
    public var logger: Logger = .disabled

    public init(store: QueueStore, settings: Settings, transport: any HTTPTransport) {
        self.store = store
        self.settings = settings
        self.transport = transport
        self.queue = DownloadQueue(maxConcurrent: settings.simultaneousDownloads)
        self.limit = max(1, settings.simultaneousDownloads)
    }

    /// Runs until no download is running and none is queued (a retry that waits counts as queued),
    /// or, with `untilStopped` (the TUI), until ``stop()``.
    public func run(untilStopped: Bool = false) async throws(StoreError) -> Summary {
        while true {
            let (started, nextRetry) = try sync()
            if !started.isEmpty { await queue.add(started) }  // one call keeps the queue order
            let (running, isStopping, diskFull) = lock.withLock { (operations.count, stopping, pausedForDisk) }
            if running == 0 {
                if isStopping || (diskFull && !untilStopped) { break }
                guard let wait = nextRetry else {
                    if untilStopped { await wakeup.wait(milliseconds: 500); continue }
                    break
                }
                await wakeup.wait(milliseconds: Int(min(0.5, max(0.01, wait)) * 1000))
            } else {
                await wakeup.wait(milliseconds: 500)
            }
        }
        await queue.waitUntilIdle()
        return lock.withLock { summary }
    }

    /// Stops every running download, keeping its partial file and leaving it queued for the next
    /// start (what SIGINT, SIGTERM and quitting do).
    public func stop() async {
        lock.withLock {
            stopping = true
            summary.interrupted = true
        }
        await queue.pauseAll()
        await wakeup.signal()
    }

    // MARK: - Sync with the store

    /// Makes operations for the first queued downloads that are due, as many as there are free slots
    /// (returned, in queue order, for the ``DownloadQueue``; the store stays the one list, so moving a
    /// row changes what starts next), and applies pauses and cancels made by other processes. Also
    /// returns the seconds until the earliest queued row may start (nil when none is queued).
    func sync() throws(StoreError) -> (started: [DownloadOperation], nextRetry: Double?) {
        var started: [DownloadOperation] = []
        var nextRetry: Double?
        let rows = try store.downloads()
        onSync(rows)
        let now = Date().timeIntervalSince1970
        var (blocked, free) = lock.withLock { (stopping || pausedForDisk, limit - operations.count) }
        // Running downloads per host: a queued row whose host has `perHostDownloads` running waits,
        // and the rows after it may start.
        var perHost = lock.withLock { Dictionary(operations.values.map { (Self.host(of: $0.request.url), 1) }, uniquingKeysWith: +) }
        var seen: Set<Int64> = []
        var order: [Int64: Int64] = [:]
        var waitingForHost = 0
        for row in rows {
            guard let id = row.id else { continue }
            seen.insert(id)
            order[id] = row.position
            if row.state == DownloadState.queued.name {
                nextRetry = min(nextRetry ?? .infinity, (row.retryAt ?? 0) - now)
            }
            let op = lock.withLock { operations[id] }
            switch row.state {
            case DownloadState.queued.name where op == nil && !blocked && (row.retryAt ?? 0) <= now:
                if free <= 0 { blocked = true; break }
                let host = Self.host(of: URL(string: row.url))
                if perHost[host, default: 0] >= max(1, settings.perHostDownloads) {
                    waitingForHost += 1
                    break
                }
                if let op = try makeOperation(row, id: id) {
                    started.append(op)
                    free -= 1
                    perHost[host, default: 0] += 1
                }
            case DownloadState.cancelled.name:
                if let op {
                    op.cancel()
                } else if lock.withLock({ partialsRemoved.insert(id).inserted }) {
                    unlink(row.partialPath)  // cancelled by another process while it waited
                }
            case DownloadState.paused.name:
                op?.pause()
            default:
                break
            }
        }
        for (id, op) in lock.withLock({ operations }) where !seen.contains(id) {
            op.cancel()  // removed by another process
        }
        lock.withLock {
            positions = order
            _waitingForHost = waitingForHost
        }
        return (started, nextRetry)
    }

    /// Queued downloads that could start but wait because their host has `per-host-downloads` running
    /// (as of the last sync): what the TUI's status line explains.
    public var waitingForHost: Int { lock.withLock { _waitingForHost } }

    /// The host a download counts against for `per-host-downloads` (lowercased; "" when none).
    static func host(of url: URL?) -> String { url?.host?.lowercased() ?? "" }

    private func makeOperation(_ row: DownloadRecord, id: Int64) throws(StoreError) -> DownloadOperation? {
        guard let url = URL(string: row.url) else {
            try store.update(id: id) { $0.state = "failed"; $0.lastError = DownloadError.invalidURL(row.url).localizedDescription }
            logger.error("download failed", metadata: ["id": "\(id)", "url": "\(row.url)", "cause": "invalid URL"])
            return nil
        }
        let saved = try store.update(id: id) {
            $0.attempts += 1
            $0.retryAt = nil
        }
        let request = DownloadRequest(url: url, destination: row.destination, title: row.title, validators: row.validators)
        var log = logger
        log[metadataKey: "id"] = "\(id)"
        let op = DownloadOperation(id: Int(id), request: request, transport: transport,
                                   configuration: DownloadConfiguration(logger: log))
        let stateToken = op.observe(\.state, options: [.new]) { [weak self] op, change in
            guard let self, let state = change.newValue else { return }
            self.stateChanged(id: id, op: op, state: state, attempts: saved.attempts)
        }
        let progressToken = op.observe(\.progress, options: [.new]) { [weak self] op, _ in
            self?.checkpoint(id: id, op: op, force: false)
        }
        let resumeToken = op.observe(\.resumedAt, options: [.new]) { [weak self] op, change in
            guard let self, let offset = change.newValue ?? nil else { return }
            self.onEvent(.resumed(id: id, title: op.request.title, at: offset))
        }
        lock.withLock {
            operations[id] = op
            tokens[id] = [stateToken, progressToken, resumeToken]
            savedValidators[id] = row.validators
        }
        onOperation(op)
        return op
    }
}

/// Drops observation tokens off the delivering thread (a handler must not end its own observation
/// while the center delivers to it).
enum DispatchQueueRelease {
    static func later(_ tokens: [ObservationToken]) {
        DispatchQueue.global().async { tokens.forEach { $0.cancel() } }
    }
}
