import FoundationEssentials
import Glibc
import NIOCore
import NIOHTTP1
import PodqBase
import PodqHTTP
import Synchronization

/// One download: claims `<destination>.part` in its ``DownloadFolder``, requests the URL, streams the
/// body into the claimed file through an `OutputStream`, checks the length, syncs and gives the file its
/// final name.
///
/// Observe ``progress``, ``state`` or ``resumedAt`` with ``KeyValueObservable/observe(_:options:changeHandler:)``.
/// Progress is published per chunk but delivered coalesced (~20 a second); the final value is always
/// delivered before ``start()`` returns. The owner that saves things (the queue runner) hears them
/// through ``DownloadHooks``, in order. All members are safe to call from any thread.
public final class DownloadOperation: KeyValueObservable, Sendable {
    /// What the owner saves, in the order it happens (``DownloadHooks/save``).
    public enum Event: Sendable, Equatable {
        /// The destination's partial was another process's: this download took a free name instead.
        case claimed(destination: String)
        /// The server's answer was accepted: its validators, and where a resume continued from.
        case responded(validators: ResourceValidators, resumedAt: Int64?)
        /// How far each segment of a segmented download is on disk (synced before it is said); nil
        /// once the partial holds no segments (emptied, or fetched on one connection).
        case segments(SegmentMap?)
        /// The whole file's checksum and what verified it, just before it takes its final name.
        case verified(Integrity)
        /// Something the user should hear about this download while it goes on: a resume that became a
        /// restart, a host that gets one connection because its answers differ per request.
        case notice(String)
    }

    /// Why a pass ended without a usable body: the next pass starts the file from zero.
    struct RestartFromZero: Error {
        /// The server ignores ranges, or answers each request with other bytes: the next pass fetches
        /// the file on one connection.
        var withoutSegments = false
        /// What to tell the user about it (``Event/notice(_:)``); nil when it goes unsaid.
        var notice: String? = nil
    }

    /// An identifier unique within its queue.
    public let id: Int
    /// What to download and where.
    public let request: DownloadRequest
    public let observationCenter: ObservationCenter
    let transport: any HTTPTransport
    let configuration: DownloadConfiguration
    let hooks: DownloadHooks
    private let givenFolder: DownloadFolder?
    private let fields: Mutex<Fields>

    private struct Fields {
        var state: DownloadState = .queued
        var progress = DownloadProgress(downloadedLength: 0, expectedLength: nil)
        var validators: ResourceValidators?
        var resumedAt: Int64?
        var error: DownloadError?
        var redirectChain = URLChain()
        var destination: String
        var finalPath: String?
        var contentType: String?
        var task: Task<Void, Never>?
        var committing = false
        /// The segment map saved for the partial, if any (from the row, then as the transfer saves it).
        var segments: SegmentMap?
        /// The segments of the transfer running now, for a progress bar.
        var table: SegmentTable?
        /// True once the server showed it ignores ranges.
        var segmentsRefused = false
        /// The row's map could not be read: the partial is emptied before anything else.
        var segmentsUnreadable = false
        /// The digests of the pass running now, and the published digest they are checked against.
        var digest: FileDigest?
        var expectedDigest: PublishedDigest?
        /// The checksum of a pass whose file differed from its published digest (one refetch follows).
        var mismatchChecksum: String?
        var integrity: Integrity?
    }

    /// - Parameters:
    ///   - id: an identifier unique within the queue.
    ///   - request: the URL, the destination and any validators from an earlier attempt.
    ///   - transport: the HTTP seam; the live one is ``AsyncHTTPTransport``.
    ///   - folder: the download folder, opened once by the owner; nil opens `request.folderPath`.
    ///   - hooks: what the owner saves; nothing by default.
    ///   - observationCenter: the observer registry (inject one with a manual clock in tests).
    public init(
        id: Int, request: DownloadRequest, transport: any HTTPTransport, folder: DownloadFolder? = nil,
        configuration: DownloadConfiguration = DownloadConfiguration(), hooks: DownloadHooks = DownloadHooks(),
        observationCenter: ObservationCenter = ObservationCenter()
    ) {
        self.id = id
        self.request = request
        self.transport = transport
        self.givenFolder = folder
        self.configuration = configuration
        self.hooks = hooks
        self.observationCenter = observationCenter
        self.fields = Mutex(
            Fields(
                validators: request.validators, destination: request.destination, segments: request.segments,
                segmentsUnreadable: request.segmentsUnreadable))
    }

    /// The current state.
    public var state: DownloadState { fields.withLock { $0.state } }
    /// Bytes on disk and bytes expected, as one value.
    public var progress: DownloadProgress { fields.withLock { $0.progress } }
    /// Bytes of the file on disk, including a resumed prefix.
    public var downloadedLength: Int64 { fields.withLock { $0.progress.downloadedLength } }
    /// The full length (`Content-Length`, or the total of `Content-Range`); nil when unknown.
    public var expectedLength: Int64? { fields.withLock { $0.progress.expectedLength } }
    /// The validators of the first response, to store and check a later resume against.
    public var validators: ResourceValidators? { fields.withLock { $0.validators } }
    /// The offset a resume continued from, once the server accepted it.
    public var resumedAt: Int64? { fields.withLock { $0.resumedAt } }
    /// Why the download failed, when it did.
    public var error: DownloadError? { fields.withLock { $0.error } }
    /// Every URL visited, the first one included, for logs.
    public var redirectChain: [String] { fields.withLock { $0.redirectChain }.urls }
    /// The segments of a segmented transfer as they stand, while one runs; nil otherwise.
    public var segments: SegmentMap? { fields.withLock { $0.table }?.snapshot }
    /// The completed file's checksum and what verified it; nil until the file is committed.
    public var integrity: Integrity? { fields.withLock { $0.integrity } }
    /// The connections a segmented transfer uses now (1 otherwise).
    public var connectionCount: Int { max(1, fields.withLock { $0.table }?.connections ?? 1) }

    /// Where the file ended up: the destination, a free name when that one was taken (by a file, or by
    /// another process's partial), with an extension from the `Content-Type` when it had none
    /// (`…/download?id=3` served as `audio/mpeg` becomes `download.mp3`).
    public var finalPath: String { fields.withLock { $0.finalPath ?? $0.destination } }
    /// The name its partial file is under (`destination` + `.part`): the request's, or the next free
    /// name when another process held that one.
    public var destination: String { fields.withLock { $0.destination } }

    // MARK: - Control

    /// Runs the download if it is queued and returns its state once it stops (completed, failed,
    /// cancelled or paused). Returns at once, with the current state, when it is not queued.
    @discardableResult
    public func start() async -> DownloadState {
        let task: Task<Void, Never>? = fields.withLock { fields in
            guard let next = fields.state.applying(.start) else { return nil }
            fields.state = next
            fields.error = nil
            let task = Task { await self.execute() }
            fields.task = task
            return task
        }
        guard let task else { return state }
        observationCenter.valueDidChange()
        await task.value
        return state
    }

    /// Stops the download and marks it cancelled. A running transfer stops within milliseconds and
    /// deletes the partial file it holds (by its descriptor: never another file put at its name); a
    /// partial no operation holds is its owner's to delete (``QueueRunner``). Ignored once the file is
    /// being committed (the download then completes).
    public func cancel() {
        _ = stop(with: .cancel)
    }

    /// Stops the download and keeps its partial file; marks it paused.
    public func pause() {
        _ = stop(with: .pause)
    }

    /// Puts a paused, failed or cancelled download back in the queued state. Returns false when the
    /// state does not allow it.
    @discardableResult
    public func requeue() -> Bool {
        let changed: Bool = fields.withLock { fields in
            guard fields.task == nil, let next = fields.state.applying(.resume) ?? fields.state.applying(.retry) else { return false }
            fields.state = next
            fields.error = nil
            return true
        }
        if changed { observationCenter.flush() }
        return changed
    }

    /// Applies `event`; returns nil when it was not valid, else whether a task was running (and was
    /// cancelled).
    private func stop(with event: DownloadEvent) -> Bool? {
        let running: Task<Void, Never>?? = fields.withLock { fields in
            guard !fields.committing, let next = fields.state.applying(event) else { return .none }
            fields.state = next
            return .some(fields.task)
        }
        guard case .some(let task) = running else { return nil }
        task?.cancel()
        observationCenter.flush()
        return task != nil
    }

    // MARK: - Running

    private func execute() async {
        var claimed: PartialFile?
        do {
            let file = try await claim()
            claimed = file
            try await download(into: file)
            transition(.finish)  // cannot be refused: pause and cancel are ignored once committing
        } catch {
            switch state {
            case .cancelled:
                claimed?.delete()  // the file it holds, whatever its name now; none claimed: the runner's
            case .paused:
                break
            default:
                if error is CancellationError {
                    transition(.pause)  // cancelled from outside (the queue shutting down)
                } else {
                    let failure = (error as? DownloadError) ?? .network(String(describing: error))
                    fields.withLock { $0.error = failure }
                    // Where it failed, when the request went through other hosts (a tracking chain).
                    let chain = fields.withLock { $0.redirectChain }
                    let via = chain.urls.count > 1 ? " (via \(SafeText.clean(chain.hosts)))" : ""
                    transition(.fail(reason: (ErrorText.describe(failure)) + via))
                }
            }
        }
        // An empty partial is worth nothing (an error page, a refused URL): none is left behind.
        if let claimed, state != .completed, (try? claimed.size()) == 0 { claimed.delete() }
        claimed?.close()
        fields.withLock { $0.task = nil }
        observationCenter.flush()
    }

    /// The folder the destination lies in: the owner's, or opened now.
    func downloadFolder() throws(DownloadError) -> DownloadFolder {
        if let givenFolder { return givenFolder }
        return try DownloadFolder(path: request.folderPath)
    }

    /// Claims the destination's partial file, or, when another process holds it, a new partial under
    /// the next free name (saved through ``DownloadHooks/save`` before a byte goes in).
    private func claim() async throws(DownloadError) -> PartialFile {
        let folder = try downloadFolder()
        let relative = try folder.relativePath(of: request.destination)
        if let file = try folder.claim(relative) { return file }
        for candidate in FileNamer.numberedNames(relative).dropFirst() where folder.identity(of: candidate) == nil {
            guard let file = try folder.claim(candidate, exclusive: true) else { continue }
            let destination = folder.absolute(candidate)
            fields.withLock { $0.destination = destination }
            await hooks.save(.claimed(destination: destination))
            return file
        }
        throw .fileSystem(path: request.partialPath, reason: "another process holds it and no free name is left")
    }

    private func transition(_ event: DownloadEvent) {
        let changed: Bool = fields.withLock { fields in
            guard let next = fields.state.applying(event) else { return false }
            fields.state = next
            return true
        }
        if changed { observationCenter.valueDidChange() }
    }

    func setProgress(downloaded: Int64, expected: Int64??) {
        fields.withLock { fields in
            fields.progress.downloadedLength = downloaded
            fields.progress.resumedFrom = downloaded
            if case .some(let value) = expected { fields.progress.expectedLength = value }
        }
        observationCenter.valueDidChange()
    }

    func addProgress(_ count: Int) {
        fields.withLock { $0.progress.downloadedLength += Int64(count) }
        observationCenter.valueDidChange()
    }

    /// Keeps what the accepted response said, and has the owner save it before the body is written.
    func record(validators: ResourceValidators, resumedAt: Int64?) async {
        fields.withLock { fields in
            fields.validators = validators
            fields.resumedAt = resumedAt
        }
        await hooks.save(.responded(validators: validators, resumedAt: resumedAt))
    }

    /// Has the owner tell the user `text` about this download (``Event/notice(_:)``).
    func say(_ text: String) async {
        await hooks.save(.notice(text))
    }

    /// The map saved for the partial.
    var savedSegments: SegmentMap? { fields.withLock { $0.segments } }
    var segmentsRefused: Bool { fields.withLock { $0.segmentsRefused } }
    /// True once: the row's map could not be read (``DownloadRequest/segmentsUnreadable``).
    func takeUnreadableSegments() -> Bool {
        fields.withLock { fields in
            defer { fields.segmentsUnreadable = false }
            return fields.segmentsUnreadable
        }
    }
    func refuseSegments() { fields.withLock { $0.segmentsRefused = true } }

    /// Keeps `segments` as the partial's map and has the owner save it.
    func save(segments: SegmentMap?) async {
        fields.withLock { $0.segments = segments }
        await hooks.save(.segments(segments))
    }

    /// The table a progress bar shows; nil when no segmented transfer runs.
    func show(_ table: SegmentTable?) {
        fields.withLock { $0.table = table }
        observationCenter.valueDidChange()
    }

    /// Starts a pass's digests, checked against `expected` (``beginDigest(validators:)``).
    func setDigest(_ digest: FileDigest, expected: PublishedDigest?) {
        fields.withLock { fields in
            fields.digest = digest
            fields.expectedDigest = expected
        }
    }

    /// The pass's digests, what they are checked against, and an earlier mismatching pass's checksum.
    var digestPass: (digest: FileDigest?, expected: PublishedDigest?, mismatch: String?) {
        fields.withLock { ($0.digest, $0.expectedDigest, $0.mismatchChecksum) }
    }

    func record(mismatch checksum: String) {
        fields.withLock { $0.mismatchChecksum = checksum }
    }

    func record(integrity: Integrity) {
        fields.withLock { $0.integrity = integrity }
    }

    func record(contentType: String?) {
        fields.withLock { $0.contentType = contentType }
    }

    /// The names to commit to, in order: the destination's, with an extension from the Content-Type
    /// when it has none, then numbered ones.
    func commitNames() -> some Sequence<String> {
        let (destination, type) = fields.withLock { ($0.destination, $0.contentType) }
        var name = LexicalPath.lastComponent(of: destination)
        if LexicalPath.pathExtension(of: name).isEmpty, let type, let ext = FileNamer.fileExtension(forContentType: type) {
            name += "." + ext
        }
        return FileNamer.numberedNames(name)
    }

    func record(finalPath: String) {
        fields.withLock { $0.finalPath = finalPath }
    }

    func record(redirectChain: URLChain) {
        fields.withLock { $0.redirectChain = redirectChain }
    }

    /// Marks the download as committing, after which pause and cancel are ignored; false when it was
    /// stopped meanwhile. ``endCommit()`` undoes it when the commit fails.
    func beginCommit() -> Bool {
        fields.withLock { fields in
            guard fields.state == .downloading, !Task.isCancelled else { return false }
            fields.committing = true
            return true
        }
    }

    func endCommit() {
        fields.withLock { $0.committing = false }
    }

}
