import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqSession
import PodqUI
import Synchronization

/// The Episodes and Podcasts views' library, read from the store in the background and handed to the
/// TUI's loop as an immutable ``EpisodeLibrary``: the loop takes the newest one without waiting and
/// never reads the database itself. Also the feeds' stated lengths by download id (the estimates of
/// downloads whose length is unknown), for the runner's callbacks.
///
/// What makes it read again: feed work of this TUI (add, refresh, unsubscribe) calls ``reload()``;
/// ``watch(at:)`` looks at the podcasts' refresh times every few seconds, so a `podq refresh` or
/// `podq add` from cron shows up too. A download starting or ending reads nothing: the episodes'
/// states come from the queue's rows (``DownloadsViewModel/episodeStates``).
final class TUILibrary: Sendable {
    private struct State {
        var library = EpisodeLibrary()
        var estimates: [Int64: Int64] = [:]
        var loaded = false
        var loading = false
        var again = false
        /// The podcasts' stamps as of the last read, by id, to notice other processes' changes.
        var stamps: [QueueSession.Reader.PodcastStamp] = []
        var watchedAt = 0.0
        /// Episodes marked played or not (`m`) that the library may not show yet.
        var playedChanges: [Int64: Bool] = [:]
        var playedVersion = 0
        /// The older episodes' notes are being (or were) indexed.
        var indexing = false
    }

    private let reader: QueueSession.Reader
    private let state = Mutex(State())
    /// Where a new library (`.libraryChanged`) and a failed read (`.libraryFailed`) go: the TUI's events.
    private let post: @Sendable (TUIEvent) -> Void

    init(reader: QueueSession.Reader, post: @escaping @Sendable (TUIEvent) -> Void = { _ in }) {
        self.reader = reader
        self.post = post
    }

    /// The newest library (empty until the first read ends).
    var current: EpisodeLibrary { state.withLock { $0.library } }
    var estimates: [Int64: Int64] { state.withLock { $0.estimates } }
    /// Episodes marked played or not that the newest library may not show yet.
    var playedChanges: [Int64: Bool] { state.withLock { $0.playedChanges } }
    /// Changes each time a library is read or an episode is marked.
    var playedVersion: Int { state.withLock { $0.playedVersion } }

    /// Shows `ids` as played (or not) at once, before the store and the next read have them.
    func markPlayed(_ ids: [Int64], _ played: Bool) {
        state.withLock { state in
            for id in ids { state.playedChanges[id] = played }
            state.playedVersion += 1
        }
        post(.libraryChanged)
    }

    /// True once the first read ended.
    var isLoaded: Bool { state.withLock { $0.loaded } }

    /// Reads the library again in the background; a request during a read makes one more read after it.
    func reload() {
        let start = state.withLock { state -> Bool in
            if state.loading {
                state.again = true
                return false
            }
            state.loading = true
            return true
        }
        guard start else { return }
        Task.detached(priority: .utility) { [self] in
            while true {
                await read()
                // Reading 100,000 rows leaves SQLite's page cache full and megabytes of freed memory
                // in this thread's malloc arena: give them back rather than keep them resident.
                reader.releaseMemory()
                FreedMemory.release()
                let more = state.withLock { state -> Bool in
                    if state.again {
                        state.again = false
                        return true
                    }
                    state.loading = false
                    return false
                }
                if !more { break }
            }
            indexOlderNotes()
        }
    }

    /// Indexes the show notes of episodes stored before the store had its search index, a batch at
    /// a time with pauses between (downloads' writes go in between), once per session.
    private func indexOlderNotes() {
        let start = state.withLock { state -> Bool in
            defer { state.indexing = true }
            return !state.indexing
        }
        guard start else { return }
        Task.detached(priority: .background) { [reader] in
            var indexed = false
            while (try? await reader.indexNotesBatch()) == true {
                indexed = true
                try? await Task.sleep(for: .milliseconds(20))
            }
            if indexed {
                reader.releaseMemory()
                FreedMemory.release()
            }
        }
    }

    /// Every `interval` seconds, looks (in the background) whether another process changed the
    /// subscriptions, and reads them again if it did.
    func watch(at time: Double, interval: Double = 5) {
        let due = state.withLock { state -> Bool in
            guard state.loaded, !state.loading, time - state.watchedAt >= interval else { return false }
            state.watchedAt = time
            return true
        }
        guard due else { return }
        Task.detached(priority: .utility) { [self] in
            // The podcasts' stamps alone (50 rows): counting the episodes would scan them all.
            guard let stamps = try? await reader.podcastStamps() else { return }
            let changed = state.withLock { $0.stamps != stamps }
            if changed { reload() }
        }
    }

    private func read() async {
        do {
            let (podcasts, counts) = try await reader.podcastsWithCounts()
            // Each row straight into the library's arrays (no array of every summary, then of every entry).
            let (builder, estimates) = try await reader.episodeSummaries(into: { (EpisodeLibrary.Builder(capacity: $0, titleBytes: $1), [Int64: Int64]()) }) {
                built, e in
                if let download = e.downloadId, let length = e.length, length > 0 { built.1[download] = length }
                built.0.append(
                    .init(
                        id: e.id, podcastId: e.podcastId, title: e.title, published: e.published, duration: e.duration,
                        length: e.length, played: e.played, position: e.position))
            }
            let rows = podcasts.map { p in
                PodcastRow(
                    id: p.id, title: SafeText.clean(p.title), url: SafeText.clean(p.url), episodes: counts[p.id] ?? 0,
                    lastRefresh: p.lastRefresh, error: p.error.map(SafeText.clean), autoQueue: p.autoQueue,
                    repairs: p.repairs.map(SafeText.clean))
            }
            let library = EpisodeLibrary(builder, podcasts: rows)
            let stamps = podcasts.map(QueueSession.Reader.PodcastStamp.init).sorted { $0.id < $1.id }
            state.withLock {
                $0.library = library
                $0.estimates = estimates
                // A change the new library has is no longer needed on top of it.
                $0.playedVersion += 1
                $0.playedChanges = $0.playedChanges.filter { id, played in library.position(of: id).map { library.isPlayed(at: $0) } != played }
                $0.stamps = stamps
                $0.loaded = true
            }
            post(.libraryChanged)
        } catch {
            post(.libraryFailed(SafeText.clean(ErrorText.describe(error))))
        }
    }
}
