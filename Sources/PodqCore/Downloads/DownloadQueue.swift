/// Runs ``DownloadOperation``s in order under a concurrency limit that can change while it runs.
///
/// An actor scheduler rather than `OperationQueue`: it cancels queued work at once, can start one
/// next, and can later reorder and limit per host (see docs/DECISIONS.md). Operations stay listed in
/// ``operations`` whatever their state; only queued ones are started.
public actor DownloadQueue {
    private var order: [DownloadOperation] = []
    private var running: [Int: Task<Void, Never>] = [:]
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    private var highWater = 0

    /// The number of downloads that may run at once (at least 1).
    public private(set) var maxConcurrent: Int

    public init(maxConcurrent: Int) {
        self.maxConcurrent = max(1, maxConcurrent)
    }

    /// Every operation added, in queue order.
    public var operations: [DownloadOperation] { order }
    /// The ids of the operations running now.
    public var runningIDs: Set<Int> { Set(running.keys) }
    /// The largest number that ever ran at once.
    public var maxObservedConcurrency: Int { highWater }

    /// Appends operations and starts what the limit allows.
    public func add(_ operations: [DownloadOperation]) {
        order.append(contentsOf: operations)
        pump()
    }

    /// Changes the limit; raising it starts more at once, lowering it lets running ones finish.
    public func setMaxConcurrent(_ value: Int) {
        maxConcurrent = max(1, value)
        pump()
    }

    /// Cancels one download, queued or running (its partial file is deleted).
    public func cancel(id: Int) {
        order.first { $0.id == id }?.cancel()
        pump()
    }

    /// Pauses one download, queued or running (its partial file is kept).
    public func pause(id: Int) {
        order.first { $0.id == id }?.pause()
        pump()
    }

    /// Puts a paused, failed or cancelled download back in line.
    public func resume(id: Int) {
        order.first { $0.id == id }?.requeue()
        pump()
    }

    /// Drops an operation from the list once its owner is done with it (a finished download that will
    /// not be resumed through this queue), so a long session does not keep every operation it ran.
    public func forget(id: Int) {
        order.removeAll { $0.id == id && $0.state != .queued }
    }

    /// Cancels every download that has not finished.
    public func cancelAll() {
        for operation in order { operation.cancel() }
    }

    /// Pauses every download that has not finished, keeping the partial files (what quitting does).
    public func pauseAll() {
        for operation in order { operation.pause() }
    }

    /// Moves a queued download to the front so it starts at the next free slot.
    public func startNext(id: Int) {
        guard let index = order.firstIndex(where: { $0.id == id }) else { return }
        let operation = order.remove(at: index)
        order.insert(operation, at: 0)
        pump()
    }

    /// Returns once nothing is running and nothing queued can start.
    public func waitUntilIdle() async {
        if isIdle { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    private var isIdle: Bool {
        running.isEmpty && !order.contains { $0.state == .queued }
    }

    private func pump() {
        while running.count < maxConcurrent,
            let next = order.first(where: { $0.state == .queued && running[$0.id] == nil })
        {
            let id = next.id
            running[id] = Task {
                await next.start()
                self.didFinish(id: id)
            }
            highWater = max(highWater, running.count)
        }
        if isIdle {
            let waiters = idleWaiters
            idleWaiters = []
            for waiter in waiters { waiter.resume() }
        }
    }

    private func didFinish(id: Int) {
        running[id] = nil
        pump()
    }
}
