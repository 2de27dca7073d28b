import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqHTTP

/// What a person (or a sync) asks of a running queue: every verb a front end needs, as a value, each
/// carried out here and answered with a typed ``Outcome`` (worded once, in ``Outcome/line``). Rows
/// change through the runner only (the one writer of rows in this process); a front end chooses when
/// to run a command (the TUI: in the order of the keys, or beside them for a bulk one) and where its
/// line goes.
extension QueueSession {
    package enum Command: Sendable, Equatable {
        /// Pause, resume, cancel or retry one download.
        case perform(DownloadEvent, id: Int64)
        /// The same for many, in one write.
        case performMany(DownloadEvent, ids: [Int64])
        /// A download first in the queue, queued again when it was paused, failed or cancelled.
        case startNext(id: Int64)
        /// A download one place up (-1) or down (+1).
        case move(id: Int64, by: Int)
        /// Pause (true) or resume (false) everything.
        case pauseAll(Bool)
        /// Remove downloads (their completed files too when `deletingFiles`).
        case remove(ids: [Int64], deletingFiles: Bool)
        /// Put URLs (or files a command planned) on the queue.
        case add([DownloadItem])
        /// Queue episodes.
        case queueEpisodes([Int64])
        /// Queue from podcasts: each one's `latest` newest, or every episode never queued.
        case queueFromPodcasts([Int64], latest: Int?)
        /// Mark episodes played or not.
        case setPlayed([Int64], Bool)
        /// Subscribe to a feed (a URL, a web page, a file); a feed already followed by this URL is not
        /// fetched again.
        case subscribe(String)
        /// Unsubscribe (downloaded files are kept).
        case unsubscribe(podcast: Int64)
        /// Fetch these podcasts' feeds again (nil: every one); new episodes of auto podcasts are queued.
        case refresh(podcasts: [Int64]?)
        /// Ask the server about each downloaded file of a podcast (one byte of it), and flag those that
        /// changed there.
        case checkUpstream(podcast: Int64)
        /// Ask the podcast directories (each with its deadline).
        case searchDirectory(String)
        /// Downloads at once, now and in the config.
        case setLimit(Int)
        /// Downloads at once from one host, now and in the config.
        case setPerHost(Int)
        /// Halve (`faster` false) or double the shared speed limit, now and in the config; `speed` is
        /// what the downloads do now (a first limit starts from half of it).
        case changeRate(faster: Bool, speed: Double)
        /// Sync with the account's server (``SyncRun``) on the session's HTTP client: push, then pull.
        /// `asked` false (a timer): without an account, nothing happens.
        case sync(full: Bool, asked: Bool)
        /// Stores what was heard of an episode after its player exited (``Playback/run()``), and queues
        /// it for the sync server.
        case recordListening(download: Int64, Listening.Listened)
    }

    /// Carries out `command` and says what it did.
    /// - Throws: ``CommandError`` with the line to say when it could not be done (in part or whole).
    package func perform(_ command: Command) async throws -> Outcome {
        do {
            return try await carryOut(command)
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError(error)
        }
    }

    private func carryOut(_ command: Command) async throws -> Outcome {
        switch command {
        case .perform(let event, let id):
            try await runner.perform(event, id: id)
            return .performed(event, id: id)
        case .performMany(let event, let ids):
            let refused = try await runner.perform(event, ids: ids)
            guard refused.isEmpty else {
                let line = Outcome.performedMany(event, count: ids.count - refused.count).line ?? ""
                let failures =
                    refused.prefix(5).map { "\(ItemKind.download.label($0.id)): \(CommandError($0.error).message)" }
                    + (refused.count > 5 ? ["and \(refused.count - 5) more"] : [])
                throw CommandError(line + "; " + failures.joined(separator: " · "), code: ExitCodes.failure)
            }
            return .performedMany(event, count: ids.count)
        case .startNext(let id):
            try await runner.startNext(id: id)
            return .startsNext(id: id)
        case .move(let id, let offset):
            return try await runner.move(id: id, by: offset) ? .moved : .cannotMove(id: id, first: offset < 0)
        case .pauseAll(let pause):
            return .pausedAll(try await runner.setAllPaused(pause), paused: pause)
        case .remove(let ids, let deletingFiles):
            if ids.count == 1, let id = ids.first {
                try await runner.remove(id: id, deletingFile: deletingFiles)
                return .removed(id: id, deletedFile: deletingFiles)
            }
            return .removedMany(try await runner.remove(ids: ids, deletingFiles: deletingFiles), deletedFiles: deletingFiles)
        case .add(let items):
            let planned = try await QueuePlanning(context: context).downloads(for: items)
            return .added(try await runner.add(planned.new))
        case .queueEpisodes(let ids):
            let (new, skipped) = try await QueuePlanning(context: context).plan(forEpisodes: ids)
            return .queued(try await runner.add(new), skipped: skipped, asked: ids.count)
        case .queueFromPodcasts(let ids, let latest):
            var episodeIds: [Int64] = []
            for id in ids {
                // Newest first: the latest `latest`, or every one never queued.
                await episodeIds += try context.store.library.episodeIds(podcastId: id, latest: latest, onlyNeverQueued: latest == nil)
            }
            guard !episodeIds.isEmpty else { return .queued([], skipped: [], asked: 0) }
            let (new, skipped) = try await QueuePlanning(context: context).plan(forEpisodes: episodeIds)
            return .queued(try await runner.add(new), skipped: skipped, asked: episodeIds.count)
        case .setPlayed(let ids, let played):
            try await context.store.library.setPlayed(episodeIds: ids, played: played)
            return .markedPlayed(ids, played)
        case .subscribe(let url):
            // Already followed (by this URL): its episodes, nothing fetched.
            if let known = try? await context.store.library.podcast(matching: url) { return .alreadySubscribed(known) }
            let outcome = try await feeds.subscribe(url, autoQueue: false)
            afterFeeds()
            return .subscribed(outcome)
        case .unsubscribe(let id):
            try await context.store.library.removePodcast(id: id)
            return .unsubscribed
        case .refresh(let ids):
            var podcasts: [PodcastRecord] = []
            if let ids {
                for id in ids { podcasts.append(try await context.store.library.podcast(matching: String(id))) }
            } else {
                podcasts = try await context.store.library.podcasts()
            }
            var outcomes: [FeedRefresh.Outcome] = []
            for p in podcasts { outcomes.append(await feeds.refresh(p)) }
            afterFeeds()
            return .refreshed(outcomes)
        case .checkUpstream(let id):
            let podcast = try await context.store.library.podcast(matching: String(id))
            let (checked, changed) = await UpstreamCheck(context: context, transport: transport).check(podcast)
            return .checkedUpstream(podcast, checked: checked, changed: changed)
        case .searchDirectory(let words):
            let answer = await DirectoryLookup.search(words, settings: context.settings, transport: transport)
            context.log.info("search", metadata: ["shows": "\(answer.shows.count)", "failed": "\(answer.failures.count)"])
            return .directory(words: words, answer)
        case .setLimit(let value):
            await runner.setMaxConcurrent(value)
            return .limit(.downloads, value, savedIn: try saved(value, as: "simultaneous-downloads", line: Outcome.limit(.downloads, value, savedIn: nil)))
        case .setPerHost(let value):
            await runner.setPerHost(value)
            return .limit(.perHost, value, savedIn: try saved(value, as: "per-host-downloads", line: Outcome.limit(.perHost, value, savedIn: nil)))
        case .changeRate(let faster, let speed):
            guard let rateLimiter else { throw CommandError("this run's speed limit cannot change", code: ExitCodes.usage) }
            let next: Int?
            if faster {
                guard let current = rateLimiter.bytesPerSecond else { return .rate(nil, changed: false, savedIn: nil) }
                next = RateLimiter.faster(than: current)
            } else {
                next = RateLimiter.slower(than: rateLimiter.bytesPerSecond, speed: speed)
            }
            rateLimiter.bytesPerSecond = next
            let written = next.map(RateLimiter.written) ?? "0"
            return .rate(next, changed: true, savedIn: try saved(written, as: "rate-limit", line: Outcome.rate(next, changed: true, savedIn: nil)))
        case .sync(let full, let asked):
            if !asked, (try? await context.store.sync.syncAccount()) == nil { return .noSyncAccount }
            let report = try await SyncRun(context: context, transport: transport).run(full: full)
            runner.wake()
            return .synced(report)
        case .recordListening(let id, let listened):
            return .recordedListening(download: id, try await Listening(store: context.store, home: context.paths.home).record(listened))
        }
    }

    /// What feed work leaves behind: new rows for the runner to start, and a big feed's freed memory.
    private func afterFeeds() {
        runner.wake()
        FreedMemory.release()
    }

    /// Keeps `value` in the config file for the next start; returns the file, or throws with `line`
    /// and why it was not saved.
    private func saved(_ value: CustomStringConvertible, as key: String, line: Outcome) throws -> String {
        let configFile = context.paths.configFile
        do {
            try ConfigFile(path: configFile).set(key, to: value.description)
            return configFile
        } catch {
            throw CommandError("\(line.line ?? key); not saved: \(ErrorText.describe(error))", code: ExitCodes.config)
        }
    }

    /// `n` things, in words: "1 row", "3 rows".
    package static func count(_ n: Int, _ noun: String) -> String { Counted.of(n, noun) }
}
