import FoundationEssentials
import PodqBase
import PodqCore
import PodqHTTP

/// The transcripts a front end shows (issue 46): the TUI's Transcript pane reads an episode's lines,
/// searches every transcript, and plays an episode from a line's time, through these.
extension QueueSession {
    /// Episode `episodeId`'s transcript: the store's, else the sidecar beside its file, else fetched
    /// from its feed's link with the session's client (under `fetch-timeout` and the size cap) and kept.
    package func transcript(episodeId: Int64) async throws -> TranscriptIndex.Loaded {
        try await TranscriptIndex(context: context).transcript(episodeId: episodeId, transport: transport)
    }

    /// Episode `episodeId`'s chapters as its feed links them (`podcast:chapters`), for an episode not
    /// downloaded (a downloaded one has them beside its file): fetched with the session's client, under
    /// `fetch-timeout` and the size cap, with the podcast's login for its origin only; the table of
    /// contents (`toc: false` ones left out).
    /// - Throws: a `CommandError` that names the link and why.
    package func linkedChapters(episodeId: Int64) async throws -> [Chapter] {
        let (episode, podcast) = try await context.store.library.episode(id: episodeId)
        guard let link = episode.chaptersURL else { throw CommandError("e\(episodeId)'s feed links no chapters", code: ExitCodes.usage) }
        let shown = SafeText.clean(SafeText.redactingCredentials(link))
        guard let url = URL(string: link), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
            throw CommandError("e\(episodeId)'s chapters link is not an http(s) address: \(shown)", code: ExitCodes.failure)
        }
        do {
            let access = try await PodcastLogin.access(for: podcast, settings: context.settings)
            let fetched = try await SmallFetch.get(url, transport: transport, access: access, limit: Int64(TranscriptLimits.standard.bytes))
            return try ChapterList.read(fetched.bytes).listed
        } catch {
            throw CommandError("the chapters of e\(episodeId) (\(shown)) cannot be read: \(ErrorText.describe(error))", code: ExitCodes.failure)
        }
    }

    /// The episode download `id` is of.
    /// - Throws: ``PlayerError/noSuchDownload(id:)``; a `CommandError` for a URL queued by hand.
    package func episodeId(ofDownload id: Int64) async throws -> Int64 {
        guard let row = try await context.store.queue.download(id: id) else { throw PlayerError.noSuchDownload(id: id) }
        guard let episodeId = row.episodeId else {
            throw CommandError("\(ItemKind.download.label(id)) was added by its URL: it is no podcast's episode, and has no transcript", code: ExitCodes.usage)
        }
        return episodeId
    }

    /// Where every transcript says `words` (a phrase; the last word also as a prefix), the best `limit`
    /// by relevance, newest episode first.
    package func searchTranscripts(_ words: String, limit: Int = 200) async throws(StoreError) -> [LibraryStore.TranscriptHit] {
        try await context.store.library.searchTranscripts(words, limit: limit)
    }

    /// How many transcripts the store has indexed.
    package func transcriptCount() async throws(StoreError) -> Int { try await context.store.library.transcriptInfos().count }

    /// Enter on a transcript's line: what plays episode `id`'s downloaded file from `at` seconds (nil:
    /// where it was left).
    /// - Throws: ``PlayerError/notDownloaded(episode:)`` when it has no completed download.
    package func preparePlay(episode id: Int64, at: Int?) async throws -> Playback {
        let (episode, _) = try await context.store.library.episode(id: id)
        guard let downloadId = episode.downloadId, let row = try await context.store.queue.download(id: downloadId), row.state == .completed else {
            throw PlayerError.notDownloaded(episode: id)
        }
        return try await Playback.prepare(download: downloadId, context: context, at: at)
    }
}
