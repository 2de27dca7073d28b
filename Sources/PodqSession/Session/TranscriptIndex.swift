import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqHTTP

/// Episodes' transcripts into the store's index (issue 46): read from the sidecars beside
/// downloaded files (`sidecars = true`), or fetched from the feed's `podcast:transcript` link for an
/// episode not downloaded (`podq transcript`, kept in the store). What `podq grep` searches.
package struct TranscriptIndex: Sendable {
    package let context: QueueContext

    package init(context: QueueContext) { self.context = context }

    /// What ``reindex(say:)`` did.
    package struct Report: Sendable, Equatable {
        package var indexed = 0
        package var cues = 0
        /// Downloaded episodes without a transcript beside them.
        package var without = 0
        /// The transcripts that could not be read: the episode and why.
        package var failed: [(episodeId: Int64, reason: String)] = []

        package static func == (a: Report, b: Report) -> Bool {
            a.indexed == b.indexed && a.cues == b.cues && a.without == b.without && a.failed.map(\.episodeId) == b.failed.map(\.episodeId)
        }
    }

    /// Indexes the transcript beside each completed download of an episode, and reads again the
    /// ones the store keeps (fetched by `podq transcript`): after an upgrade of the readers, or for
    /// files downloaded before. `say` gets a line per transcript that could not be read.
    package func reindex(say: (String) -> Void = { _ in }) async throws -> Report {
        var report = Report()
        var done = Set<Int64>()
        for row in try await context.store.queue.downloads() where row.state == .completed {
            guard let episodeId = row.episodeId, !done.contains(episodeId) else { continue }
            guard let (path, format) = SidecarFiles.transcript(of: row) else {
                report.without += 1
                continue
            }
            done.insert(episodeId)
            do {
                let document = try await index(file: path, format: format, row: row, episodeId: episodeId)
                report.indexed += 1
                report.cues += document.cues.count
            } catch {
                let reason = ErrorText.describe(error)
                report.failed.append((episodeId, reason))
                say("e\(episodeId): \(SafeText.clean(LexicalPath.lastComponent(of: path))): \(reason)")
            }
        }
        for (episodeId, info) in try await context.store.library.transcriptInfos() where info.cached && !done.contains(episodeId) {
            guard let cached = try await context.store.library.cachedTranscript(episodeId: episodeId) else { continue }
            do {
                let duration = try? await context.store.library.episode(id: episodeId).episode.duration
                let document = try TranscriptReader.read(cached.bytes, format: cached.format, duration: duration.map(Double.init))
                try await context.store.library.saveTranscript(episodeId: episodeId, source: cached.source, document: document, body: cached.bytes)
                report.indexed += 1
                report.cues += document.cues.count
            } catch {
                report.failed.append((episodeId, ErrorText.describe(error)))
                say("e\(episodeId): \(ErrorText.describe(error))")
            }
        }
        return report
    }

    /// Reads the transcript file at `path` (in `row`'s download folder, reached as every file there is:
    /// ``DownloadFolder``) and indexes it as `episodeId`'s.
    @discardableResult
    package func index(file path: String, format: TranscriptFormat?, row: DownloadRecord, episodeId: Int64) async throws -> TranscriptDocument {
        let folder = try DownloadFolder(path: row.folderPath)
        let limit = TranscriptLimits.standard.bytes
        guard let (bytes, tooLarge) = try folder.contents(of: try folder.relativePath(of: path), limit: limit) else {
            throw CommandError("the transcript \(SafeText.clean(path)) is gone", code: ExitCodes.failure)
        }
        if tooLarge { throw TranscriptError.tooLarge(bytes: limit + 1, limit: limit) }
        let duration = try? await context.store.library.episode(id: episodeId).episode.duration
        let document = try TranscriptReader.read(bytes, format: format, duration: duration.map(Double.init))
        try await context.store.library.saveTranscript(episodeId: episodeId, source: path, document: document, body: nil)
        return document
    }

    /// `episodeId`'s transcript as the store has it, else read from the sidecar beside its file,
    /// else fetched from its feed's `podcast:transcript` link (the first of `transcript-types` it
    /// offers; under `fetch-timeout` and the size cap; with the podcast's login, which goes only to
    /// the origin it was given for) and kept in the store. `refresh`: read or fetch again.
    package func transcript(episodeId: Int64, transport: any HTTPTransport, refresh: Bool = false) async throws -> Loaded {
        let store = context.store
        let (episode, podcast) = try await store.library.episode(id: episodeId)
        if !refresh, let info = try await store.library.transcriptInfo(episodeId: episodeId) {
            return Loaded(source: info.source, format: info.format, cues: try await store.library.transcriptCues(episodeId: episodeId), notes: [])
        }
        if let downloadId = episode.downloadId, let row = try await store.queue.download(id: downloadId), row.state == .completed,
            let (path, format) = SidecarFiles.transcript(of: row)
        {
            let document = try await index(file: path, format: format, row: row, episodeId: episodeId)
            return Loaded(source: path, format: document.format, cues: try await store.library.transcriptCues(episodeId: episodeId), notes: document.notes)
        }
        guard let link = EpisodeSidecars.preferred(episode.allTranscripts, order: context.settings.transcriptTypes) else {
            throw CommandError(
                "e\(episodeId) has no transcript: its feed links none (podcast:transcript), and none is beside a downloaded file", code: ExitCodes.usage)
        }
        guard let url = URL(string: link.url), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
            throw CommandError(
                "e\(episodeId)'s transcript link is not an http(s) address: \(SafeText.clean(SafeText.redactingCredentials(link.url)))",
                code: ExitCodes.failure)
        }
        let access = try await PodcastLogin.access(for: podcast, settings: context.settings)
        let fetched: (bytes: [UInt8], type: String?)
        do {
            fetched = try await SmallFetch.get(url, transport: transport, access: access, limit: Int64(TranscriptLimits.standard.bytes))
        } catch {
            throw CommandError(
                "the transcript of e\(episodeId) could not be fetched (\(SafeText.redactingCredentials(link.url))): \(ErrorText.describe(error))",
                code: ExitCodes.failure)
        }
        let source = SafeText.redactingCredentials(link.url)
        let format = TranscriptFormat(mimeType: link.type) ?? fetched.type.flatMap { TranscriptFormat(mimeType: $0) }
        let document: TranscriptDocument
        do {
            document = try TranscriptReader.read(fetched.bytes, format: format, duration: episode.duration.map(Double.init))
        } catch {
            throw CommandError("the transcript of e\(episodeId) (\(SafeText.clean(source))) cannot be read: \(error)", code: ExitCodes.failure)
        }
        try await store.library.saveTranscript(episodeId: episodeId, source: source, document: document, body: fetched.bytes)
        return Loaded(source: source, format: document.format, cues: try await store.library.transcriptCues(episodeId: episodeId), notes: document.notes)
    }

    /// A transcript as ``transcript(episodeId:transport:refresh:)`` gives it: its cues as indexed.
    package struct Loaded: Sendable {
        package var source: String
        package var format: TranscriptFormat
        package var cues: [TranscriptCue]
        package var notes: [String]
    }
}
