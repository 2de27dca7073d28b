import Foundation
import PodqCore
import PodqHTTP
import PodqSQLite
import PodqTestSupport
import Synchronization
import XCTest

@testable import PodqSession

/// Every verb of the application's API (``QueueSession/Command``) as a unit: a real temporary store
/// and home, a `MemoryTransport` in place of the network (feeds, files, a directory, a Nextcloud
/// server), each verb's typed outcome and its line, and what it changed in the store and the config.
final class QueueSessionCommandsTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUp() async throws { dir = TemporaryDirectory("podq-verbs") }
    override func tearDown() async throws { dir.remove() }

    /// What the memory network serves: a feed of `episodes` at `feedURL` (500 when `feedFails`),
    /// each episode's file, the directory, and a Nextcloud sync app.
    final class Web: Sendable {
        static let feedURL = "http://feeds.test/show.xml"
        let episodes = Mutex(3)
        let feedFails = Mutex(false)
        let directoryFails = Mutex(false)
        let uploads = Mutex<[String]>([])

        static func bytes(_ n: Int) -> [UInt8] { (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) } }

        var feed: String {
            let items = (1...episodes.withLock { $0 }).map { n in
                "<item><title>Episode \(n)</title><guid>g\(n)</guid><pubDate>Mon, 0\(n) Jun 2026 10:00:00 GMT</pubDate>"
                    + "<enclosure url=\"http://media.test/e\(n).mp3\" length=\"20000\" type=\"audio/mpeg\"/></item>"
            }
            return "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Show</title>\(items.joined())</channel></rss>"
        }

        func answer(_ request: TransportRequest) -> MemoryTransport.Reply {
            let url = request.url
            switch (url.host ?? "", url.path) {
            case ("feeds.test", "/show.xml"):
                if feedFails.withLock({ $0 }) { return .init(status: 500) }
                return .ok(Array(feed.utf8), headers: [("Content-Type", "application/rss+xml")])
            case ("media.test", let path):
                guard let n = Int(path.dropFirst(2).dropLast(4)) else { return .init(status: 404) }
                return .ok(Self.bytes(n), headers: [("Content-Type", "audio/mpeg")])
            case ("directory.test", "/search"):
                if directoryFails.withLock({ $0 }) { return .init(status: 503) }
                let json = #"{"resultCount":1,"results":[{"collectionName":"Found Show","artistName":"Someone","feedUrl":"http://feeds.test/show.xml"}]}"#
                return .ok(Array(json.utf8), headers: [("Content-Type", "application/json")])
            case ("cloud.test", let path):
                uploads.withLock { $0.append("\(request.method.rawValue) \(path)") }
                if path.hasSuffix("/subscriptions") { return .ok(Array(#"{"add":[],"remove":[],"timestamp":100}"#.utf8)) }
                if path.hasSuffix("/episode_action") { return .ok(Array(#"{"actions":[],"timestamp":100}"#.utf8)) }
                return .ok(Array(#"{"timestamp":100}"#.utf8))
            default:
                return .init(status: 404)
            }
        }
    }

    /// Runs `body` in a session on a fresh home with `config`, over the memory network.
    private func session<T>(
        config: String = "", web: Web = Web(), adjustableRate: Bool = false, _ body: (QueueSession, QueueContext, MemoryTransport) async throws -> T
    ) async throws -> T {
        let home = dir.file("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try config.write(toFile: home + "/config", atomically: true, encoding: .utf8)
        let context = try QueueContext.open(home: home, downloadDir: dir.file("out"), echoLog: false)
        let memory = MemoryTransport { request, _ in web.answer(request) }
        let result = try await QueueSession.with(
            context: context, overrides: .init(transport: memory), frontEnd: .init(note: { _ in }, adjustableRate: adjustableRate)
        ) { try await body($0, context, memory) }
        return try XCTUnwrap(result, "the home's lock was free")
    }

    private func subscribed(_ session: QueueSession) async throws -> PodcastRecord {
        guard case .subscribed(let outcome) = try await session.perform(.subscribe(Web.feedURL)), let podcast = outcome.podcast else {
            throw CommandError("the feed was not subscribed to")
        }
        return podcast
    }

    func testSubscribeRefreshAndUnsubscribe() async throws {
        let web = Web()
        try await session(web: web) { session, context, memory in
            let first = try await session.perform(.subscribe(Web.feedURL))
            guard case .subscribed(let outcome) = first, let podcast = outcome.podcast else { return XCTFail("\(first)") }
            let id = podcast.id
            let episodesCount = try await context.store.library.episodes(podcastId: id).count
            XCTAssertEqual(episodesCount, 3)
            let fetches = memory.requests.values.count
            guard case .alreadySubscribed(let known) = try await session.perform(.subscribe(Web.feedURL)) else { return XCTFail("a second subscribe") }
            XCTAssertEqual(known.id, id)
            XCTAssertEqual(memory.requests.values.count, fetches, "a feed already followed is not fetched again")
            XCTAssertEqual(QueueSession.Outcome.alreadySubscribed(known).line, "already subscribed to Show (p\(id))")

            web.episodes.withLock { $0 = 4 }
            let refreshed = try await session.perform(.refresh(podcasts: nil))
            guard case .refreshed(let outcomes) = refreshed else { return XCTFail("\(refreshed)") }
            XCTAssertEqual(outcomes.map(\.newCount), [1])
            XCTAssertFalse(refreshed.failed)
            XCTAssertTrue(refreshed.line?.hasPrefix("refreshed 1 feed: 1 new episode") == true, refreshed.line ?? "")
            let episodesCount2 = try await context.store.library.episodes(podcastId: id).count
            XCTAssertEqual(episodesCount2, 4)

            web.feedFails.withLock { $0 = true }
            let failed = try await session.perform(.refresh(podcasts: [id]))
            XCTAssertTrue(failed.failed, "a feed that fails makes the refresh a failure")
            XCTAssertTrue(failed.line?.hasPrefix("refreshed 1 feed: 0 new episodes") == true, failed.line ?? "")
            XCTAssertTrue(failed.line?.contains("500") == true, failed.line ?? "")
            let episodesCount3 = try await context.store.library.episodes(podcastId: id).count
            XCTAssertEqual(episodesCount3, 4, "a failed refresh loses nothing")

            let gone = try await session.perform(.unsubscribe(podcast: id))
            XCTAssertEqual(gone.line, "unsubscribed; downloaded files are kept")
            let podcastsCount = try await context.store.library.podcasts().count
            XCTAssertEqual(podcastsCount, 0)
        }
    }

    func testQueueingEpisodesOneByOneAndFromPodcasts() async throws {
        try await session { session, context, _ in
            let podcast = try await subscribed(session)
            let listed = try await context.store.library.episodes(podcastId: podcast.id).map(\.episode)
            let oldest = try XCTUnwrap(listed.last?.id)
            let one = try await session.perform(.queueEpisodes([oldest]))
            guard case .queued(let made, _, 1) = one, let row = made.first else { return XCTFail("\(one)") }
            XCTAssertEqual(one.line, "queued Show — Episode 1 as d\(row.id)")
            let again = try await session.perform(.queueEpisodes([oldest]))
            XCTAssertEqual(again.line, "already in the queue as d\(row.id) (queued)")

            let latest = try await session.perform(.queueFromPodcasts([podcast.id], latest: 2))
            XCTAssertEqual(latest.line, "queued 2 episodes")
            let rest = try await session.perform(.queueFromPodcasts([podcast.id], latest: nil))
            XCTAssertEqual(rest.line, "nothing new to queue", "every episode was queued once")
            let storedDownloads = try await context.store.queue.downloads().map(\.episodeId)
            XCTAssertEqual(Set(storedDownloads), Set(listed.map(\.id)))
        }
    }

    func testRowVerbsThenARunOfWhatIsLeft() async throws {
        try await session { session, context, memory in
            var said: String?
            let items = (1...4).map { DownloadItem(url: URL(string: "http://media.test/e\($0).mp3")!, title: "File \($0)") }
            guard case .added(let rows) = try await session.perform(.add(items)) else { return XCTFail("added") }
            let ids = rows.compactMap(\.id)
            XCTAssertEqual(ids.count, 4)

            said = try await session.perform(.perform(.pause, id: ids[0])).line

            XCTAssertEqual(said, "paused d\(ids[0]) (its partial file is kept)")
            let downloadState = try await context.store.queue.download(id: ids[0])?.state
            XCTAssertEqual(downloadState, .paused)
            said = try await session.perform(.startNext(id: ids[3])).line
            XCTAssertEqual(said, "d\(ids[3]) starts next")
            let downloadsId = try await context.store.queue.downloads().first?.id
            XCTAssertEqual(downloadsId, ids[3], "first in the queue")
            said = try await session.perform(.move(id: ids[3], by: -1)).line
            XCTAssertEqual(said, "d\(ids[3]) is already first")
            said = try await session.perform(.move(id: ids[3], by: 1)).line
            XCTAssertNil(said, "a move says nothing")
            said = try await session.perform(.pauseAll(true)).line
            XCTAssertEqual(said, "paused 3 downloads; P resumes them")
            said = try await session.perform(.performMany(.resume, ids: ids)).line
            XCTAssertEqual(said, "resumed 4 downloads")
            said = try await session.perform(.remove(ids: [ids[1]], deletingFiles: false)).line
            XCTAssertEqual(said, "removed d\(ids[1])")

            let summary = try await session.run()
            XCTAssertEqual(summary.completed, 3)
            for (n, id) in [(1, ids[0]), (3, ids[2]), (4, ids[3])] {
                let storedDownload = try await context.store.queue.download(id: id)
                let row = try XCTUnwrap(storedDownload)
                XCTAssertEqual(row.state, .completed)
                XCTAssertEqual(FileManager.default.contents(atPath: row.destination).map(Array.init), Web.bytes(n))
            }
            XCTAssertFalse(memory.requests.values.contains { $0.url.path == "/e2.mp3" }, "a removed row is never fetched")
        }
    }

    func testMarkingPlayed() async throws {
        try await session { session, context, _ in
            let podcast = try await subscribed(session)
            let ids = try await context.store.library.episodes(podcastId: podcast.id).map { $0.episode.id }
            var said: String?
            said = try await session.perform(.setPlayed([ids[0]], true)).line
            XCTAssertEqual(said, "marked e\(ids[0]) played")
            let episodePlayedAt = try await context.store.library.episode(id: ids[0]).episode.playedAt
            XCTAssertNotNil(episodePlayedAt)
            said = try await session.perform(.setPlayed(ids, false)).line
            XCTAssertEqual(said, "marked 3 episodes not played")
            let episodePlayedAt2 = try await context.store.library.episode(id: ids[0]).episode.playedAt
            XCTAssertNil(episodePlayedAt2)
        }
    }

    /// What mpv said when it quit is stored by a command (off the thread that waited for the player):
    /// the place, and the end marks the episode played.
    func testRecordingWhatWasHeard() async throws {
        try await session { session, context, _ in
            let podcast = try await subscribed(session)
            let id = try await context.store.library.episodes(podcastId: podcast.id).map { $0.episode.id }[0]
            let episode = Listening.Episode(id: id, position: nil, played: false, duration: 60)
            let partway = Listening.Listened(heard: Listening.Heard(started: 0, position: 31.4, duration: nil), episode: episode)
            var said = try await session.perform(.recordListening(download: 7, partway)).line
            XCTAssertEqual(said, "d7: stopped at 0:31 of 1:00; it starts there next time")
            var stored = try await context.store.library.episode(id: id).episode
            XCTAssertEqual(stored.position, 31)
            XCTAssertNil(stored.playedAt)

            let nothing = Listening.Listened(heard: Listening.Heard(started: 0, position: 0, duration: 60), episode: episode)
            said = try await session.perform(.recordListening(download: 7, nothing)).line
            XCTAssertNil(said, "nothing heard: nothing said, nothing stored")

            let end = Listening.Listened(heard: Listening.Heard(started: 31, position: 59, duration: 60, reachedEnd: true), episode: episode)
            said = try await session.perform(.recordListening(download: 7, end)).line
            XCTAssertEqual(said, "d7: heard to the end: marked played")
            stored = try await context.store.library.episode(id: id).episode
            XCTAssertNotNil(stored.playedAt)
        }
    }

    func testCapsAndTheSpeedLimitChangeNowAndInTheConfig() async throws {
        try await session(adjustableRate: true) { session, context, _ in
            var said: String?
            said = try await session.perform(.setLimit(3)).line
            XCTAssertEqual(said, "3 downloads at once (saved in \(context.paths.configFile))")
            said = try await session.perform(.setPerHost(1)).line
            XCTAssertEqual(said, "1 download at once from one host (saved in \(context.paths.configFile))")
            XCTAssertEqual(session.status.limit, 3)
            XCTAssertEqual(session.status.perHost, 1)

            let none = try await session.perform(.changeRate(faster: true, speed: 0))
            XCTAssertEqual(none.line, "there is no speed limit", "nothing to raise")
            let slower = try await session.perform(.changeRate(faster: false, speed: 4_000_000))
            guard case .rate(let limit?, true, _) = slower else { return XCTFail("\(slower)") }
            XCTAssertLessThan(limit, 4_000_000, "a first limit is below the speed now")
            XCTAssertEqual(session.status.rateLimit, limit)
            let config = try String(contentsOfFile: context.paths.configFile, encoding: .utf8)
            XCTAssertTrue(config.contains("simultaneous-downloads = 3"), config)
            XCTAssertTrue(config.contains("per-host-downloads = 1"), config)
            XCTAssertTrue(config.contains("rate-limit = \(RateLimiter.written(limit))"), config)
            let faster = try await session.perform(.changeRate(faster: true, speed: 0))
            XCTAssertEqual(session.status.rateLimit, RateLimiter.faster(than: limit))
            XCTAssertTrue(faster.line?.hasPrefix("speed limit ") == true, faster.line ?? "")
        }
    }

    func testSearchingTheDirectory() async throws {
        let web = Web()
        let config = "search-providers = itunes\nsearch-itunes-url = http://directory.test/search\n"
        try await session(config: config, web: web) { session, _, memory in
            let found = try await session.perform(.searchDirectory("history"))
            guard case .directory(let words, let answer) = found else { return XCTFail("\(found)") }
            XCTAssertEqual(words, "history")
            XCTAssertEqual(answer.shows.map(\.feedURL), [Web.feedURL])
            XCTAssertNil(found.line, "nothing failed: nothing to say")
            XCTAssertEqual(memory.requests.values.last?.url.host, "directory.test")

            web.directoryFails.withLock { $0 = true }
            let failed = try await session.perform(.searchDirectory("history"))
            XCTAssertTrue(failed.line?.hasPrefix("No directory could be searched: ") == true, failed.line ?? "")
        }
    }

    func testSyncWithoutAnAccountThenWithOne() async throws {
        let web = Web()
        try await session(web: web) { session, context, memory in
            guard case .noSyncAccount = try await session.perform(.sync(full: false, asked: false)) else { return XCTFail("a timer's sync") }
            XCTAssertEqual(memory.requests.values.count, 0, "without an account nothing is asked")
            do {
                _ = try await session.perform(.sync(full: false, asked: true))
                XCTFail("asked without an account")
            } catch let error as CommandError {
                XCTAssertTrue(error.message.contains("podq sync login"), error.message)
            }

            _ = try await subscribed(session)
            try await context.store.sync.saveSyncAccount(
                .init(server: "http://cloud.test", flavour: .nextcloud, user: "me", device: nil, passwordCommand: "echo secret", keyring: false))
            let synced = try await session.perform(.sync(full: false, asked: false))
            guard case .synced(let report) = synced else { return XCTFail("\(synced)") }
            XCTAssertEqual(report.sentSubscriptions, 1, "the subscription went to the server")
            XCTAssertTrue(web.uploads.withLock { $0 }.contains("POST /index.php/apps/gpoddersync/subscription_change/create"))
            XCTAssertFalse(synced.line?.contains("\n") == true, "one line")
        }
    }

    func testPreparingAndRunningAPlay() async throws {
        try await session(config: "player = true\n") { session, _, _ in
            guard case .added(let rows) = try await session.perform(.add([DownloadItem(url: URL(string: "http://media.test/e1.mp3")!, title: "One")])),
                let id = rows.first?.id
            else { return XCTFail("added") }
            do {
                _ = try await session.preparePlay(id)
                XCTFail("not downloaded yet: nothing to play")
            } catch {
                guard case PlayerError.notCompleted = error else { return XCTFail("\(error)") }
            }
            _ = try await session.run()
            let playback = try await session.preparePlay(id)
            XCTAssertEqual(playback.argv.first, "true")
            let played = try playback.run()
            XCTAssertEqual(played.exit.status, 0)
            XCTAssertNil(played.listened, "only mpv's position is recorded")
            XCTAssertNil(played.line)
            XCTAssertEqual(playback.line(after: played.exit, recorded: nil).text, "played d\(id) with true")
            do {
                _ = try await session.preparePlay(9999)
                XCTFail("no such download")
            } catch {
                guard case PlayerError.noSuchDownload(id: 9999) = error else { return XCTFail("\(error)") }
            }
        }
    }

    /// `podq refresh` and `podq sync` beside a running queue: a session without the home's lock (held
    /// here as by the TUI) subscribes and queues through its runner, which never runs; the queue's
    /// own session downloads those rows; a later one asks the server about the file.
    func testASessionBesideTheQueueTakesNoLock() async throws {
        let home = dir.file("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let context = try QueueContext.open(home: home, downloadDir: dir.file("out"), echoLog: false)
        let web = Web()
        let memory = MemoryTransport { request, _ in web.answer(request) }
        let held = HomeLock(home: home)
        XCTAssertNil(try held.acquire())
        let podcast = try await QueueSession.beside(context: context, transport: memory) { session in
            let podcast = try await subscribed(session)
            _ = try await session.perform(.queueFromPodcasts([podcast.id], latest: 1))
            return podcast
        }
        let storedDownloads2 = try await context.store.queue.downloads().map(\.state)
        XCTAssertEqual(storedDownloads2, [.queued], "queued, not downloaded: that is the queue's runner's")
        held.release()
        let summary = try await QueueSession.with(context: context, overrides: .init(transport: memory), frontEnd: .init(note: { _ in })) {
            try await $0.run()
        }
        XCTAssertEqual(summary?.completed, 1)
        let checked = try await QueueSession.beside(context: context, transport: memory) { try await $0.perform(.checkUpstream(podcast: podcast.id)) }
        guard case .checkedUpstream(_, 1, let changed) = checked else { return XCTFail("\(checked)") }
        let said = "Show: 1 downloaded file checked with the server, \(changed) changed upstream"
        XCTAssertEqual(checked.line, said + (changed > 0 ? " (podq episodes --updated)" : ""))
    }

    /// A session beside the queue (the sync before `podq download`) ends without stopping a runner that
    /// never ran: stopping one tells the store to wait at most 2 s more for another program's lock,
    /// and `podq download` then gave up at once on a lock it should have waited for.
    func testASessionBesideLeavesTheLockWaitsAlone() async throws {
        let home = dir.file("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let context = try QueueContext.open(home: home, downloadDir: dir.file("out"), echoLog: false)
        let memory = MemoryTransport { request, _ in Web().answer(request) }
        _ = try await QueueSession.beside(context: context, transport: memory) { session in try await subscribed(session) }
        let other = try DatabaseQueue(path: context.paths.database)
        try await other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        let store = context.store
        let write = Task.detached { try await store.library.setPlayed(episodeIds: [1], played: true) }
        let waited = await waitUntil(timeout: 10) { (store.lockWait.waiting ?? 0) > 3 }
        XCTAssertTrue(waited, "the write waits for the lock past the 2 s a stopping runner allows")
        try await other.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
        _ = try await write.value
        let episodePlayedAt3 = try await store.library.episode(id: 1).episode.playedAt
        XCTAssertNotNil(episodePlayedAt3, "the write went through once the lock came free")
    }
}
