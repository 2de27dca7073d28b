import Dispatch
import Foundation
import PodqCore
import PodqUI

/// One thing to download, as a command hands it to ``DownloadRunner``.
struct DownloadItem: Sendable {
    var url: URL
    /// The title to show; the file name when nil.
    var title: String?
    /// The file name to use; the URL's last path segment when nil.
    var fileName: String?

    init(url: URL, title: String?, fileName: String? = nil) {
        self.url = url
        self.title = title
        self.fileName = fileName
    }
}

/// The frontend of `podq download`: names the files, runs the queue, reports, handles SIGINT and
/// SIGTERM, and returns the exit code.
final class DownloadRunner: Sendable {
    let downloadFolder: String
    let jobs: Int
    let stallTimeout: Duration

    init(downloadFolder: String, jobs: Int, stallTimeout: Duration = .seconds(30)) {
        self.downloadFolder = downloadFolder
        self.jobs = jobs
        self.stallTimeout = stallTimeout
    }

    /// Downloads `items` and returns the exit code (0, 1 or 130).
    func run(_ items: [DownloadItem]) async throws -> Int32 {
        do {
            try FileManager.default.createDirectory(atPath: downloadFolder, withIntermediateDirectories: true)
        } catch {
            FileHandle.standardError.write(Data("podq: cannot create the download folder \(downloadFolder): \(error.localizedDescription)\n".utf8))
            return ExitCodes.usage
        }
        let transport = AsyncHTTPTransport(stallTimeout: stallTimeout)
        let operations = try plan(items, transport: transport)
        if operations.isEmpty {
            FileHandle.standardError.write(Data("podq: nothing to download; give one or more URLs.\n".utf8))
            return ExitCodes.success
        }
        let queue = DownloadQueue(maxConcurrent: jobs)
        let reporter = DownloadReporter(operations: operations, live: isatty(STDOUT_FILENO) == 1)
        let interrupt = InterruptHandler { await queue.pauseAll() }

        reporter.begin()
        await queue.add(operations)
        if interrupt.fired { await queue.pauseAll() }  // a signal that came before the queue had work
        await queue.waitUntilIdle()
        await transport.shutdown()
        reporter.end(interrupted: interrupt.fired)
        interrupt.disarm()

        if interrupt.fired { return ExitCodes.interrupted }
        return operations.contains { if case .failed = $0.state { true } else { false } } ? ExitCodes.failure : ExitCodes.success
    }

    /// Gives each item a safe, unique destination in the download folder.
    func plan(_ items: [DownloadItem], transport: any HTTPTransport) throws -> [DownloadOperation] {
        var reserved: Set<String> = []
        var operations: [DownloadOperation] = []
        for (index, item) in items.enumerated() {
            let name = item.fileName.map { FileNamer.safeName($0) } ?? FileNamer.name(forURL: item.url)
            let path = try FileNamer.uniquePath(in: downloadFolder, name: name.isEmpty ? "download" : name, reserved: reserved)
            reserved.insert(path)
            let title = item.title.map(SafeText.clean) ?? (path as NSString).lastPathComponent
            let request = DownloadRequest(url: item.url, destination: path, title: title)
            operations.append(DownloadOperation(id: index + 1, request: request, transport: transport))
        }
        return operations
    }
}

/// Turns SIGINT and SIGTERM into one call of `action` (pause everything, keep the partials).
final class InterruptHandler: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private let lock = NSLock()
    private var _fired = false

    init(action: @escaping @Sendable () async -> Void) {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [weak self] in
                guard let self else { return }
                let first = self.lock.withLock {
                    defer { self._fired = true }
                    return !self._fired
                }
                if first {
                    Task { await action() }
                } else {
                    exit(ExitCodes.interrupted)  // a second Ctrl-C: stop now; partials are on disk already
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// True once a signal arrived.
    var fired: Bool { lock.withLock { _fired } }

    /// Stops listening and restores the default handlers.
    func disarm() {
        sources.forEach { $0.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
