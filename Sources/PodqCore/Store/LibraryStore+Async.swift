import FoundationEssentials
import Glibc

/// The library from async code: each synchronous entry point (`@available(*, noasync)`: the compiler refuses it
/// in async code) has this twin of the same name, which runs it on a thread of the store's own
/// (``StorePart/run(_:)``), so the cooperative pool never waits for SQLite or another program's lock.
/// The queue runner's own writes are the pool's async ones (DownloadStore+Runner.swift).
extension LibraryStore {
    /// ``markUpdatedUpstream(episodeId:reason:)`` from async code, off the cooperative pool.
    public func markUpdatedUpstream(episodeId: Int64, reason: String) async throws(StoreError) {
        try await run { part throws(StoreError) in try part.markUpdatedUpstream(episodeId: episodeId, reason: reason) }
    }

    /// ``updatedUpstream(podcastId:)`` from async code, off the cooperative pool.
    public func updatedUpstream(podcastId: Int64) async throws(StoreError) -> [EpisodeRecord] {
        try await run { part throws(StoreError) in try part.updatedUpstream(podcastId: podcastId) }
    }

    /// ``podcastRules()`` from async code, off the cooperative pool.
    public func podcastRules() async throws(StoreError) -> [Int64: PodcastSettings] {
        try await run { part throws(StoreError) in try part.podcastRules() }
    }

    /// ``markDownloaded(episodeIds:)`` from async code, off the cooperative pool.
    @discardableResult
    public func markDownloaded(episodeIds: [Int64]) async throws(StoreError) -> Int {
        try await run { part throws(StoreError) in try part.markDownloaded(episodeIds: episodeIds) }
    }

    /// ``notInLedger(_:)`` from async code, off the cooperative pool.
    public func notInLedger(_ episodeIds: [Int64]) async throws(StoreError) -> [Int64] {
        try await run { part throws(StoreError) in try part.notInLedger(episodeIds) }
    }

    /// ``episodeIdsInLedger()`` from async code, off the cooperative pool.
    public func episodeIdsInLedger() async throws(StoreError) -> Set<Int64> {
        try await run { part throws(StoreError) in try part.episodeIdsInLedger() }
    }

    /// ``serialCandidates(podcastId:count:admits:)`` from async code, off the cooperative pool.
    public func serialCandidates(podcastId: Int64, count: Int, admits: @escaping @Sendable (EpisodeRecord) -> Bool) async throws(StoreError) -> [Int64] {
        try await run { part throws(StoreError) in try part.serialCandidates(podcastId: podcastId, count: count, admits: admits) }
    }

    /// ``episodes(podcastId:)`` from async code, off the cooperative pool.
    public func episodes(podcastId: Int64? = nil) async throws(StoreError) -> [EpisodeListing] {
        try await run { part throws(StoreError) in try part.episodes(podcastId: podcastId) }
    }

    /// ``forEachEpisode(podcastId:notesMatching:onlyNew:onlyUpdated:_:)`` from async code, off the cooperative pool.
    public func forEachEpisode(
        podcastId: Int64? = nil, notesMatching: String? = nil, onlyNew: Bool = false, onlyUpdated: Bool = false,
        _ body: @escaping @Sendable (EpisodeListing) throws -> Void
    ) async throws(StoreError) {
        try await run { part throws(StoreError) in
            try part.forEachEpisode(podcastId: podcastId, notesMatching: notesMatching, onlyNew: onlyNew, onlyUpdated: onlyUpdated, body)
        }
    }

    /// ``episodeIds(podcastId:latest:onlyNeverQueued:)`` from async code, off the cooperative pool.
    public func episodeIds(podcastId: Int64, latest: Int? = nil, onlyNeverQueued: Bool = false) async throws(StoreError) -> [Int64] {
        try await run { part throws(StoreError) in try part.episodeIds(podcastId: podcastId, latest: latest, onlyNeverQueued: onlyNeverQueued) }
    }

    /// ``episodesMatchingNotesNow(_:)`` from async code, off the cooperative pool.
    public func episodesMatchingNotesNow(_ query: String) async throws(StoreError) -> NotesSearchResult {
        try await run { part throws(StoreError) in try part.episodesMatchingNotesNow(query) }
    }

    /// ``indexAllNotes()`` from async code, off the cooperative pool.
    public func indexAllNotes() async throws(StoreError) {
        try await run { part throws(StoreError) in try part.indexAllNotes() }
    }

    /// ``addPodcast(url:feed:etag:lastModified:autoQueue:announce:)`` from async code, off the cooperative pool.
    public func addPodcast(url: String, feed: Feed, etag: String?, lastModified: String?, autoQueue: Bool, announce: Bool = true) async throws(StoreError) -> (
        podcast: PodcastRecord, episodes: [EpisodeRecord]
    ) {
        try await run { part throws(StoreError) in
            try part.addPodcast(url: url, feed: feed, etag: etag, lastModified: lastModified, autoQueue: autoQueue, announce: announce)
        }
    }

    /// ``refreshPodcast(id:url:feed:etag:lastModified:)`` from async code, off the cooperative pool.
    public func refreshPodcast(id: Int64, url: String, feed: Feed, etag: String?, lastModified: String?) async throws(StoreError) -> [EpisodeRecord] {
        try await run { part throws(StoreError) in try part.refreshPodcast(id: id, url: url, feed: feed, etag: etag, lastModified: lastModified) }
    }

    /// ``refreshedUnchanged(id:movedTo:)`` from async code, off the cooperative pool.
    public func refreshedUnchanged(id: Int64, movedTo: String?) async throws(StoreError) -> String {
        try await run { part throws(StoreError) in try part.refreshedUnchanged(id: id, movedTo: movedTo) }
    }

    /// ``mergePage(podcastId:feed:)`` from async code, off the cooperative pool.
    public func mergePage(podcastId id: Int64, feed: Feed) async throws(StoreError) -> [EpisodeRecord] {
        try await run { part throws(StoreError) in try part.mergePage(podcastId: id, feed: feed) }
    }

    /// ``updatePodcast(id:_:)`` from async code, off the cooperative pool.
    @discardableResult
    public func updatePodcast(id: Int64, _ change: @escaping @Sendable (inout PodcastRecord) -> Void) async throws(StoreError) -> PodcastRecord {
        try await run { part throws(StoreError) in try part.updatePodcast(id: id, change) }
    }

    /// ``episodeCounts()`` from async code, off the cooperative pool.
    public func episodeCounts() async throws(StoreError) -> [Int64: Int] {
        try await run { part throws(StoreError) in try part.episodeCounts() }
    }

    /// ``largestEpisodeId()`` from async code, off the cooperative pool.
    public func largestEpisodeId() async throws(StoreError) -> Int64 {
        try await run { part throws(StoreError) in try part.largestEpisodeId() }
    }

    /// ``podcast(matching:)`` from async code, off the cooperative pool.
    public func podcast(matching query: String) async throws(StoreError) -> PodcastRecord {
        try await run { part throws(StoreError) in try part.podcast(matching: query) }
    }

    /// ``podcastURLs()`` from async code, off the cooperative pool.
    public func podcastURLs() async throws(StoreError) -> [String] {
        try await run { part throws(StoreError) in try part.podcastURLs() }
    }

    /// ``removePodcast(id:announce:)`` from async code, off the cooperative pool.
    public func removePodcast(id: Int64, announce: Bool = true) async throws(StoreError) {
        try await run { part throws(StoreError) in try part.removePodcast(id: id, announce: announce) }
    }

    /// ``setPlayed(episodeIds:played:)`` from async code, off the cooperative pool.
    @discardableResult
    public func setPlayed(episodeIds: [Int64], played: Bool) async throws(StoreError) -> Int {
        try await run { part throws(StoreError) in try part.setPlayed(episodeIds: episodeIds, played: played) }
    }

    /// ``savePosition(episode:position:)`` from async code, off the cooperative pool.
    public func savePosition(episode id: Int64, position: Int) async throws(StoreError) {
        try await run { part throws(StoreError) in try part.savePosition(episode: id, position: position) }
    }

    /// ``episode(id:)`` from async code, off the cooperative pool.
    public func episode(id: Int64) async throws(StoreError) -> (episode: EpisodeRecord, podcast: PodcastRecord) {
        try await run { part throws(StoreError) in try part.episode(id: id) }
    }

    /// ``saveTranscript(episodeId:source:document:body:)`` from async code, off the cooperative pool.
    public func saveTranscript(episodeId: Int64, source: String, document: TranscriptDocument, body: [UInt8]?) async throws(StoreError) {
        try await run { part throws(StoreError) in try part.saveTranscript(episodeId: episodeId, source: source, document: document, body: body) }
    }

    /// ``transcriptInfo(episodeId:)`` from async code, off the cooperative pool.
    public func transcriptInfo(episodeId: Int64) async throws(StoreError) -> TranscriptInfo? {
        try await run { part throws(StoreError) in try part.transcriptInfo(episodeId: episodeId) }
    }

    /// ``transcriptCues(episodeId:)`` from async code, off the cooperative pool.
    public func transcriptCues(episodeId: Int64) async throws(StoreError) -> [TranscriptCue] {
        try await run { part throws(StoreError) in try part.transcriptCues(episodeId: episodeId) }
    }

    /// ``searchTranscripts(_:podcastId:limit:)`` from async code, off the cooperative pool.
    public func searchTranscripts(_ query: String, podcastId: Int64? = nil, limit: Int = 50) async throws(StoreError) -> [TranscriptHit] {
        try await run { part throws(StoreError) in try part.searchTranscripts(query, podcastId: podcastId, limit: limit) }
    }

    /// ``transcriptInfos()`` from async code, off the cooperative pool.
    public func transcriptInfos() async throws(StoreError) -> [Int64: TranscriptInfo] {
        try await run { part throws(StoreError) in try part.transcriptInfos() }
    }

    /// ``cachedTranscript(episodeId:)`` from async code, off the cooperative pool.
    public func cachedTranscript(episodeId: Int64) async throws(StoreError) -> (bytes: [UInt8], format: TranscriptFormat, source: String)? {
        try await run { part throws(StoreError) in try part.cachedTranscript(episodeId: episodeId) }
    }
}
