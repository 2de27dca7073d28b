import FoundationEssentials
import Glibc
import Logging
import PodqBase
import PodqCore
import PodqHTTP
import Subprocess
import Synchronization

#if canImport(System)
    import System
#else
    import SystemPackage
#endif

/// The config's `on-complete` command, run for every finished download (issue 18, point 7): directly,
/// not through a shell, its words split on spaces, the file's path added as the last argument (or put
/// where `%f` is), with `PODQ_FILE`, `PODQ_TITLE`, `PODQ_PODCAST`, `PODQ_URL`, `PODQ_ID`,
/// `PODQ_SHA256` and `PODQ_VERIFIED` in its environment. Its exit status and what it printed go to the log; one that outlives `hook-timeout`
/// gets SIGTERM, then SIGKILL two seconds later, with everything it started (its own session). A hook
/// never changes its download: the file is committed and the row completed before it runs.
package final class CompletionHooks: Sendable {
    /// The config's command, in words; a podcast's own (`podq set <podcast> on-complete=`) wins.
    private let command: [String]?
    private let timeout: Duration
    /// The timeout as the config gives it, for messages.
    private let timeoutText: String
    private let context: QueueContext
    private let running = Mutex<[UUID: Task<Void, Never>]>([:])

    /// Nil when neither the config nor any podcast has an `on-complete`.
    package init?(context: QueueContext, settings: Settings) {
        let words = settings.onComplete.map(Self.words)
        command = words?.isEmpty == false ? words : nil
        let podcasts = (try? context.store.library.podcastRules().values.contains { $0.onComplete != nil }) ?? false
        guard command != nil || podcasts else { return nil }
        timeout = .milliseconds(Int64(settings.hookTimeout * 1000))
        timeoutText = settings.hookTimeout == settings.hookTimeout.rounded() ? String(Int(settings.hookTimeout)) : String(settings.hookTimeout)
        self.context = context
    }

    /// Starts the hook when `event` is a download's completion.
    package func handle(_ event: QueueRunner.Event) {
        guard case .completed(let id, _, let path, _, _) = event else { return }
        let key = UUID()
        running.withLock {
            $0[key] = Task { [self] in
                await run(id: id, path: path)
                _ = running.withLock { $0.removeValue(forKey: key) }
            }
        }
    }

    /// The hooks running now.
    package var runningCount: Int { running.withLock { $0.count } }

    /// What to tell the user while ``finish()`` waits, nil when no hook runs.
    package var waitingLine: String? {
        let count = runningCount
        guard count > 0 else { return nil }
        return "podq: waiting for \(count) on-complete hook\(count == 1 ? "" : "s") to finish (at most \(timeoutText) s; hook-timeout)"
    }

    /// Waits for the hooks still running (each ends by its timeout at the latest).
    package func finish() async {
        while let next = running.withLock({ $0.popFirst()?.value }) { await next.value }
    }

    /// A command line's words (split on spaces, as `player`'s).
    package static func words(_ line: String) -> [String] { line.split(separator: " ").map(String.init) }

    /// The arguments for `path`: `%f` replaced, else the path added.
    package static func arguments(_ words: [String], path: String) -> [String] {
        words.contains("%f") ? words.map { $0 == "%f" ? path : $0 } : words + [path]
    }

    private func run(id: Int64, path: String) async {
        let row = try? await context.store.queue.download(id: id)
        var episode: (episode: EpisodeRecord, podcast: PodcastRecord)?
        if let id = row?.episodeId { episode = try? await context.store.library.episode(id: id) }
        let values = [
            ("PODQ_FILE", path),
            ("PODQ_TITLE", SafeText.clean(episode?.episode.title ?? row?.title ?? "")),
            ("PODQ_PODCAST", SafeText.clean(episode?.podcast.title ?? row?.podcast ?? "")),
            // Without a login it may carry (`https://user:pass@host/…`): the hook gets the file's address only.
            ("PODQ_URL", SafeText.clean(row.flatMap { URL(string: $0.url) }.map { Credentials.split($0).url.absoluteString } ?? "")),
            ("PODQ_ID", String(id)),
            // Computed while the file streamed (an on-complete hook asks for it): docs/FILES.md.
            ("PODQ_SHA256", row?.sha256 ?? ""),
            ("PODQ_VERIFIED", row?.integrityProblem == nil ? row?.verifiedBy ?? "" : "unverified"),
        ]
        guard let words = episode?.podcast.rules.onComplete.map(Self.words) ?? command, !words.isEmpty else { return }
        let shown = SafeText.clean(words.joined(separator: " "))
        let limit = timeout
        do {
            let finished = try await ChildCommand.within(limit) {
                var environment: [Environment.Key: String?] = [:]
                for (key, value) in values { environment[Environment.Key(stringLiteral: key)] = value }
                // A path runs that file; a bare name is looked up in PATH.
                let executable: Executable = words[0].contains("/") ? .path(FilePath(words[0])) : .name(words[0])
                // What it prints goes to a file without a name, however much it is; the log keeps
                // the first 16 KB (a pipe with a limit would end a chatty hook as an error).
                let capture = try Self.captureFile()
                defer { try? capture.close() }
                let result = try await Subprocess.run(
                    executable, arguments: Arguments(Self.arguments(Array(words.dropFirst()), path: path)),
                    environment: .inherit.updating(environment), platformOptions: ChildCommand.sessionOptions,
                    output: .fileDescriptor(capture, closeAfterSpawningProcess: false),
                    error: .fileDescriptor(capture, closeAfterSpawningProcess: false))
                var said = [UInt8](repeating: 0, count: Self.keptOutput)
                let count = said.withUnsafeMutableBytes { pread(capture.rawValue, $0.baseAddress, $0.count, 0) }
                return Finished(
                    status: result.terminationStatus.described, success: result.terminationStatus.isSuccess,
                    said: String(decoding: said.prefix(max(0, count)), as: UTF8.self))
            }
            guard let finished else {
                context.log.error("hook timed out", metadata: ["download": "\(id)", "hook": "\(shown)", "after": "\(timeoutText) s"])
                return
            }
            let said = SafeText.clean(finished.said.trimmingWhitespace)
            var metadata: Logger.Metadata = ["download": "\(id)", "hook": "\(shown)", "status": "\(finished.status)"]
            if !said.isEmpty { metadata["output"] = "\(said)" }
            if finished.success {
                context.log.info("hook finished", metadata: metadata)
            } else {
                context.log.error("hook failed", metadata: metadata)
            }
        } catch {
            context.log.error(
                "hook could not run", metadata: ["download": "\(id)", "hook": "\(shown)", "reason": "\(SafeText.clean(String(describing: error)))"])
        }
    }

    /// How much of a hook's output the log keeps.
    package static let keptOutput = 16 * 1024

    /// A new file in `$TMPDIR`, unlinked at once: its descriptor is all there is of it.
    private static func captureFile() throws -> FileDescriptor {
        let folder = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let path = folder + "/podq-hook-\(UUID().uuidString).out"
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        unlink(path)
        return FileDescriptor(rawValue: fd)
    }

    /// How a hook ended.
    private struct Finished: Sendable {
        package let status: String
        package let success: Bool
        package let said: String
    }
}
