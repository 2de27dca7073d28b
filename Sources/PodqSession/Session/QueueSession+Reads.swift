import FoundationEssentials
import Glibc
import Logging
import PodqBase
import PodqCore

/// The read side of a session: what a front end shows, as values. ``status`` never waits (the
/// runner's counters and the limiter, each behind its own lock); the ``Reader``'s reads go to the
/// store, from a front end's background task, never from its render path.
extension QueueSession {
    /// The queue's figures now.
    package struct Status: Sendable, Equatable {
        package var running: Int
        package var limit: Int
        package var perHost: Int
        package var waitingForHost: Int
        /// The shared speed limit in bytes a second; nil: none.
        package var rateLimit: Int?
    }

    package var status: Status {
        let runner = self.runner.status
        return Status(
            running: runner.running, limit: runner.limit, perHost: runner.perHost, waitingForHost: runner.waitingForHost,
            rateLimit: rateLimiter?.bytesPerSecond)
    }

    /// The store's reads a front end needs.
    package var reader: Reader { Reader(context: context) }
    /// Where the run's files and config are.
    package var paths: PodqPaths { context.paths }
    /// The process's log.
    package var log: Logger { context.log }

    /// Reads of the queue and the library, as values (the store stays the session's).
    package struct Reader: Sendable {
        package typealias PodcastStamp = LibraryStore.PodcastStamp
        package typealias EpisodeSummary = LibraryStore.EpisodeSummary
        package typealias NotesSearchResult = LibraryStore.NotesSearchResult
        private let store: QueueStore
        /// The config's `auto-queue`, for a podcast that has no setting of its own.
        package let configAutoQueue: Bool

        /// The reads of `context`'s store (a front end's, before its session opens).
        package init(context: QueueContext) {
            store = context.store
            configAutoQueue = context.settings.autoQueue
        }

        init(store: QueueStore, configAutoQueue: Bool) {
            self.store = store
            self.configAutoQueue = configAutoQueue
        }

        /// Every row, in queue order, without blocking the caller's thread (the TUI reads them on its main actor).
        package func downloads() async throws(StoreError) -> [DownloadRecord] { try await store.queue.loadDownloads() }
        package func download(id: Int64) async throws(StoreError) -> DownloadRecord? { try await store.queue.download(id: id) }
        package func episode(id: Int64) async throws(StoreError) -> (episode: EpisodeRecord, podcast: PodcastRecord) { try await store.library.episode(id: id) }
        package func podcast(id: Int64) async throws(StoreError) -> PodcastRecord { try await store.library.podcast(matching: String(id)) }
        package func podcastsWithCounts() async throws(StoreError) -> (podcasts: [PodcastRecord], counts: [Int64: Int]) {
            try await store.library.podcastsWithCounts()
        }
        package func episodeSummaries<Result: Sendable>(
            into make: @escaping @Sendable (_ count: Int, _ titleBytes: Int) -> Result,
            _ add: @escaping @Sendable (inout Result, EpisodeSummary) -> Void
        ) async throws(StoreError) -> Result {
            try await store.library.episodeSummaries(into: make, add)
        }
        /// The podcasts' stamps alone (a row each): whether the library changed, without counting episodes.
        package func podcastStamps() async throws(StoreError) -> [PodcastStamp] { try await store.library.podcastStamps() }
        package func notesMatching(_ query: String) async throws(StoreError) -> NotesSearchResult { try await store.library.episodesMatchingNotes(query) }
        /// Indexes the next batch of older show notes for search; false when none was left.
        package func indexNotesBatch() async throws(StoreError) -> Bool { try await store.library.indexNotesBatch() }
        /// Gives SQLite's page cache back after a big read.
        package func releaseMemory() { store.releaseMemory() }
    }

    /// `o` in the TUI: what plays download `id` (the player's command, the episode's position).
    package func preparePlay(_ id: Int64) async throws -> Playback { try await Playback.prepare(download: id, context: context) }
}

/// Playing a completed download with the configured player, and recording what was heard (mpv): the
/// one sequence `podq play` and the TUI's `o` share.
package struct Playback: Sendable {
    package let id: Int64
    /// The player's command, the file last or at `%f`.
    package let argv: [String]
    private let listening: Listening
    private let episode: Listening.Episode?

    /// Reads the row, its file and its episode (one read before the terminal goes to the player),
    /// without holding a thread: `podq play`, and the TUI's `o` off its main actor.
    /// - Throws: ``PlayerError`` (no such download, no file, no player).
    /// - Parameter at: where to start, in seconds (`podq play --at`, a transcript's hit); the stored position otherwise.
    /// - Parameter chapter: start at this chapter (1 is the first of the table of contents; `podq play --chapter`).
    package static func prepare(download id: Int64, context: QueueContext, at: Int? = nil, chapter: Int? = nil) async throws -> Playback {
        let listening = Listening(store: context.store, home: context.paths.home)
        let file = try await Player.file(of: id, in: context.store)
        let chapters = (try await context.store.queue.download(id: id)).flatMap(SidecarFiles.chapters(of:))?.listed ?? []
        var at = at
        if let chapter {
            guard chapters.indices.contains(chapter - 1) else { throw PlayerError.noChapter(chapter, count: chapters.count) }
            at = Int(chapters[chapter - 1].start.rounded(.down))
        }
        return try Playback(
            id: id, file: file, listening: listening, episode: await listening.episode(ofDownload: id), context: context, at: at, chapters: chapters)
    }

    private init(
        id: Int64, file: String, listening: Listening, episode: Listening.Episode?, context: QueueContext, at: Int?, chapters: [Chapter]
    ) throws {
        self.id = id
        argv = try Player.command(for: file, configured: context.settings.player, configFile: context.paths.configFile)
        if at != nil && !Listening.canStart(argv) { throw PlayerError.cannotStartAt(command: argv[0]) }
        self.chapters = chapters
        context.log.info("playing", metadata: ["id": "\(id)", "command": "\(argv.joined(separator: " "))"])
        self.listening = listening
        self.episode = episode
        self.at = at
    }

    private let at: Int?
    /// The episode's chapters (its sidecar's table of contents), for mpv.
    package let chapters: [Chapter]

    /// Runs the player until it exits, on the calling thread (it has the terminal); returns how it
    /// exited and what was heard, which ``record(_:)`` (or the session's `.recordListening`) stores.
    package func run() throws -> Listening.Played {
        try listening.play(argv, episode: episode, at: at, chapters: chapters) { try Player.run($0, handing: $1) }
    }

    /// Stores what was heard and queues it for the sync server; the line says it.
    package func record(_ listened: Listening.Listened) async throws -> String? {
        try await listening.record(listened)
    }

    /// What the TUI says after the player exited; `isError` when it failed.
    package func line(after exit: Player.Exit, recorded: String?) -> (text: String, isError: Bool) {
        let status = exit.signal == nil ? exit.status : 0
        guard status == 0 else { return (ErrorText.describe(PlayerError.failed(command: argv[0], status: status, reason: exit.reason)), true) }
        return ("played \(ItemKind.download.label(id)) with \(argv[0])" + (recorded.map { ": " + $0 } ?? ""), false)
    }
}
