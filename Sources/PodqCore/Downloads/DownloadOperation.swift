import Foundation
import NIOCore
import NIOHTTP1

/// One download: requests the URL, streams the body to `<destination>.part` through an `OutputStream`,
/// checks the length, fsyncs and renames to the destination.
///
/// Observe ``progress``, ``state`` or ``resumedAt`` with ``KeyValueObservable/observe(_:options:changeHandler:)``.
/// Progress is published per chunk but delivered coalesced (~20 a second); the final value is
/// always delivered before ``start()`` returns. All members are safe to call from any thread.
public final class DownloadOperation: KeyValueObservable, @unchecked Sendable {
    /// An identifier unique within its queue.
    public let id: Int
    /// What to download and where.
    public let request: DownloadRequest
    public let observationCenter: ObservationCenter
    let transport: any HTTPTransport
    let configuration: DownloadConfiguration

    private let lock = NSLock()
    private var _state: DownloadState = .queued
    private var _progress = DownloadProgress(downloadedLength: 0, expectedLength: nil)
    private var _validators: ResourceValidators?
    private var _resumedAt: Int64?
    private var _error: DownloadError?
    private var _redirectChain = URLChain()
    private var _finalPath: String?
    private var _contentType: String?
    private var task: Task<Void, Never>?
    private var committing = false

    /// - Parameters:
    ///   - id: an identifier unique within the queue.
    ///   - request: the URL, the destination and any validators from an earlier attempt.
    ///   - transport: the HTTP seam; the live one is ``AsyncHTTPTransport``.
    ///   - observationCenter: the observer registry (inject one with a manual clock in tests).
    public init(id: Int, request: DownloadRequest, transport: any HTTPTransport,
                configuration: DownloadConfiguration = DownloadConfiguration(),
                observationCenter: ObservationCenter = ObservationCenter()) {
        self.id = id
        self.request = request
        self.transport = transport
        self.configuration = configuration
        self.observationCenter = observationCenter
        self._validators = request.validators
    }

    /// The current state.
    public var state: DownloadState { lock.withLock { _state } }
    /// Bytes on disk and bytes expected, as one value.
    public var progress: DownloadProgress { lock.withLock { _progress } }
    /// Bytes of the file on disk, including a resumed prefix.
    public var downloadedLength: Int64 { lock.withLock { _progress.downloadedLength } }
    /// The full length (`Content-Length`, or the total of `Content-Range`); nil when unknown.
    public var expectedLength: Int64? { lock.withLock { _progress.expectedLength } }
    /// The validators of the first response, to store and check a later resume against.
    public var validators: ResourceValidators? { lock.withLock { _validators } }
    /// The offset a resume continued from, once the server accepted it.
    public var resumedAt: Int64? { lock.withLock { _resumedAt } }
    /// Why the download failed, when it did.
    public var error: DownloadError? { lock.withLock { _error } }
    /// Every URL visited, the first one included, for logs.
    public var redirectChain: [String] { lock.withLock { _redirectChain }.urls }
    /// Where the file ended up: the destination, or with an extension from the `Content-Type` added
    /// when the destination had none (`…/download?id=3` served as `audio/mpeg` becomes `download.mp3`).
    public var finalPath: String { lock.withLock { _finalPath ?? request.destination } }

    // MARK: - Control

    /// Runs the download if it is queued and returns its state once it stops (completed, failed,
    /// cancelled or paused). Returns at once, with the current state, when it is not queued.
    @discardableResult
    public func start() async -> DownloadState {
        let task: Task<Void, Never>? = lock.withLock {
            guard let next = _state.applying(.start) else { return nil }
            _state = next
            _error = nil
            let task = Task { await self.execute() }
            self.task = task
            return task
        }
        guard let task else { return state }
        observationCenter.valueDidChange()
        await task.value
        return state
    }

    /// Stops the download and deletes its partial file; marks it cancelled. Stops a running transfer
    /// within milliseconds. Ignored once the file is being committed (the download then completes).
    public func cancel() {
        guard let running = stop(with: .cancel) else { return }
        if !running { removePartial() }
    }

    /// Stops the download and keeps its partial file; marks it paused.
    public func pause() {
        _ = stop(with: .pause)
    }

    /// Puts a paused, failed or cancelled download back in the queued state. Returns false when the
    /// state does not allow it.
    @discardableResult
    public func requeue() -> Bool {
        let changed: Bool = lock.withLock {
            guard task == nil, let next = _state.applying(.resume) ?? _state.applying(.retry) else { return false }
            _state = next
            _error = nil
            return true
        }
        if changed { observationCenter.flush() }
        return changed
    }

    /// Applies `event`; returns nil when it was not valid, else whether a task was running (and was
    /// cancelled).
    private func stop(with event: DownloadEvent) -> Bool? {
        let running: Task<Void, Never>?? = lock.withLock {
            guard !committing, let next = _state.applying(event) else { return .none }
            _state = next
            return .some(task)
        }
        guard case .some(let task) = running else { return nil }
        task?.cancel()
        observationCenter.flush()
        return task != nil
    }

    // MARK: - Running

    private func execute() async {
        do {
            try await download()
            transition(.finish)  // cannot be refused: pause and cancel are ignored once committing
        } catch {
            switch state {
            case .cancelled:
                removePartial()
            case .paused:
                break
            default:
                if error is CancellationError {
                    transition(.pause)  // cancelled from outside (the queue shutting down)
                } else {
                    let failure = (error as? DownloadError) ?? .network(String(describing: error))
                    lock.withLock { _error = failure }
                    transition(.fail(reason: failure.localizedDescription))
                }
            }
        }
        lock.withLock { task = nil }
        observationCenter.flush()
    }

    private func transition(_ event: DownloadEvent) {
        let changed: Bool = lock.withLock {
            guard let next = _state.applying(event) else { return false }
            _state = next
            return true
        }
        if changed { observationCenter.valueDidChange() }
    }

    func setProgress(downloaded: Int64, expected: Int64??) {
        lock.withLock {
            _progress.downloadedLength = downloaded
            if case .some(let value) = expected { _progress.expectedLength = value }
        }
        observationCenter.valueDidChange()
    }

    func addProgress(_ count: Int) {
        lock.withLock { _progress.downloadedLength += Int64(count) }
        observationCenter.valueDidChange()
    }

    func record(validators: ResourceValidators?, resumedAt: Int64?) {
        lock.withLock {
            _validators = validators
            _resumedAt = resumedAt
        }
    }

    func record(contentType: String?) {
        lock.withLock { _contentType = contentType }
    }

    /// The path to commit to: the destination, plus an extension from the Content-Type when it has
    /// none and the name with it is free.
    func commitPath() -> String {
        let destination = request.destination
        guard (destination as NSString).pathExtension.isEmpty,
            let type = lock.withLock({ _contentType }), let ext = FileNamer.fileExtension(forContentType: type)
        else { return destination }
        let candidate = destination + "." + ext
        if FileManager.default.fileExists(atPath: candidate) || FileManager.default.fileExists(atPath: candidate + ".part") {
            return destination
        }
        return candidate
    }

    func record(finalPath: String) {
        lock.withLock { _finalPath = finalPath }
    }

    func record(redirectChain: URLChain) {
        lock.withLock { _redirectChain = redirectChain }
    }

    /// Marks the download as committing, after which pause and cancel are ignored; false when it was
    /// stopped meanwhile. ``endCommit()`` undoes it when the commit fails.
    func beginCommit() -> Bool {
        lock.withLock {
            guard _state == .downloading, !Task.isCancelled else { return false }
            committing = true
            return true
        }
    }

    func endCommit() {
        lock.withLock { committing = false }
    }

    private func removePartial() {
        unlink(request.partialPath)
    }
}
