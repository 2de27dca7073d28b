import Foundation
import PodqCore
import PodqTestSupport
import XCTest

/// The sync account's durable queue and what a pull applies, on a real store.
final class SyncStoreTests: XCTestCase {
    private var dir: TemporaryDirectory!
    private var store: QueueStore!

    override func setUp() async throws {
        dir = TemporaryDirectory()
        store = try QueueStore(path: dir.file("q.sqlite"))
    }

    override func tearDown() async throws { dir.remove() }

    private func subscribe() throws -> [EpisodeRecord] {
        let feed = Feed(
            title: "Show",
            episodes: (1...3).map { i in
                FeedEpisode(
                    guid: "g\(i)", title: "E\(i)", published: Date(timeIntervalSince1970: 1_790_000_000 + Double(i)), duration: 1800,
                    enclosures: [Enclosure(url: "https://cdn.example.com/e\(i).mp3")])
            })
        return try store.library.addPodcast(url: "https://feeds.example.com/show.xml", feed: feed, etag: nil, lastModified: nil, autoQueue: false).episodes
    }

    private func login() throws {
        try store.sync.saveSyncAccount(
            .init(server: "https://sync.example", flavour: .gpodder, user: "u", device: "podq-t", passwordCommand: "cat pw", keyring: false))
    }

    func testNothingIsQueuedWithoutAnAccountAndTheFirstPushSendsEverySubscription() throws {
        let episodes = try subscribe()
        _ = try store.library.setPlayed(episodeIds: [episodes[0].id], played: true)
        try store.sync.queueSubscriptionChange(url: "https://other.example/f", subscribe: true)
        try login()
        let pending = try store.sync.pendingSyncChanges()
        XCTAssertEqual(pending.map(\.kind), [.subscribe])
        XCTAssertEqual(pending.first?.url, "https://feeds.example.com/show.xml")
    }

    /// Never one feed in both an add and a remove: the last intent replaces the one still waiting.
    func testTheLastIntentForAFeedWins() throws {
        try login()
        try store.sync.queueSubscriptionChange(url: "https://a.example/f", subscribe: true)
        try store.sync.queueSubscriptionChange(url: "http://A.example/f", subscribe: false)
        try store.sync.queueSubscriptionChange(url: "https://b.example/f", subscribe: false)
        try store.sync.queueSubscriptionChange(url: "https://b.example/f", subscribe: true)
        XCTAssertEqual(try store.sync.pendingSyncChanges().map { "\($0.kind) \($0.url)" }, ["unsubscribe http://A.example/f", "subscribe https://b.example/f"])
    }

    /// A mark queues a play to the end in the same transaction; a newer play of the same episode
    /// replaces the waiting one; an undo queues nothing.
    func testMarksQueuePlaysToTheEnd() throws {
        let episodes = try subscribe()
        try login()
        _ = try store.library.setPlayed(episodeIds: [episodes[1].id], played: true)
        _ = try store.library.setPlayed(episodeIds: [episodes[1].id], played: false)
        let actions = try store.sync.pendingSyncChanges().compactMap(\.action)
        XCTAssertEqual(actions.count, 1)
        XCTAssertEqual(actions.first?.episode, "https://cdn.example.com/e2.mp3")
        XCTAssertEqual(actions.first?.guid, "g2")
        XCTAssertEqual([actions.first?.started, actions.first?.position, actions.first?.total], [1800, 1800, 1800])
        try store.sync.queueEpisodeAction(
            .init(
                podcast: "https://feeds.example.com/show.xml", episode: "https://cdn.example.com/e2.mp3", action: .play, timestamp: 9, started: 0, position: 60,
                total: 1800))
        XCTAssertEqual(try store.sync.pendingSyncChanges().compactMap(\.action?.position), [60])
    }

    /// Applying plays: by GUID first, else by URL; only a later play changes the position; a play to the
    /// end marks it played; the same plays again change nothing.
    func testPlaysApplyOnceAndALaterOneWins() throws {
        let episodes = try subscribe()
        let feed = "http://feeds.example.com/show.xml"
        let plays = [
            EpisodeAction(
                podcast: feed, episode: "https://elsewhere.example/x.mp3", guid: "g1", action: .play, timestamp: 100, started: 0, position: 300, total: 1800),
            EpisodeAction(
                podcast: feed, episode: "https://dts.podtrac.com/redirect.mp3/cdn.example.com/e2.mp3", action: .play, timestamp: 100, started: 0,
                position: 1800, total: 1800),
            EpisodeAction(podcast: feed, episode: "https://cdn.example.com/e9.mp3", action: .play, timestamp: 100, started: 0, position: 5, total: 9),
            EpisodeAction(
                podcast: "https://unknown.example/f", episode: "https://cdn.example.com/e1.mp3", action: .play, timestamp: 100, position: 5, total: 9),
            EpisodeAction(podcast: feed, episode: "https://cdn.example.com/e3.mp3", action: .delete, timestamp: 100),
        ]
        let first = try store.sync.applyPlays(plays)
        XCTAssertEqual(first.positions, 2)
        XCTAssertEqual(first.played, 1)
        XCTAssertEqual(first.unmatched, 2)
        let again = try store.sync.applyPlays(plays)
        XCTAssertEqual([again.positions, again.played], [0, 0], "applied once only")
        // A play with no time of its own is taken as heard now, and once: the same again changes nothing.
        let timeless = EpisodeAction(podcast: feed, episode: "x", guid: "g3", action: .play, timestamp: 0, started: 0, position: 42, total: 1800)
        XCTAssertEqual(try store.sync.applyPlays([timeless]).positions, 1)
        XCTAssertEqual(try store.sync.applyPlays([timeless]).positions, 0)
        let older = EpisodeAction(podcast: feed, episode: "x", guid: "g1", action: .play, timestamp: 50, started: 0, position: 10, total: 1800)
        XCTAssertEqual(try store.sync.applyPlays([older]).positions, 0, "an older play does not move it back")
        let newer = EpisodeAction(podcast: feed, episode: "x", guid: "g1", action: .play, timestamp: 200, started: 300, position: 900, total: 1800)
        XCTAssertEqual(try store.sync.applyPlays([newer]).positions, 1)
        let stored = try store.library.episodes().map(\.episode)
        XCTAssertEqual(stored.first { $0.guid == "g1" }?.position, 900)
        XCTAssertNil(stored.first { $0.guid == "g1" }?.playedAt)
        XCTAssertNotNil(stored.first { $0.guid == "g2" }?.playedAt)
        XCTAssertNotNil(stored.first { $0.guid == "g3" }, "a received delete deletes nothing")
        XCTAssertEqual(episodes.count, 3)
    }

    /// What a player heard is stored and queued as a play; heard to the end, the episode is played.
    func testListeningIsStoredAndQueued() throws {
        let episodes = try subscribe()
        try login()
        try store.sync.recordListening(episode: episodes[0].id, started: 0, position: 640, total: 1800, reachedEnd: false)
        try store.sync.recordListening(episode: episodes[1].id, started: 100, position: 1799, total: 1800, reachedEnd: true)
        let stored = try store.library.episodes().map(\.episode)
        XCTAssertEqual(stored.first { $0.guid == "g1" }?.position, 640)
        XCTAssertNil(stored.first { $0.guid == "g1" }?.playedAt)
        XCTAssertNotNil(stored.first { $0.guid == "g2" }?.playedAt)
        let actions = try store.sync.pendingSyncChanges().compactMap(\.action)
        XCTAssertEqual(actions.map { [$0.started, $0.position, $0.total] }, [[0, 640, 1800], [1800, 1800, 1800]])
        XCTAssertTrue(actions.allSatisfy { $0.action == .play })
    }

    private func heard(_ id: Int64) throws -> (position: Int?, played: Bool) {
        let (episode, _) = try store.library.episode(id: id)
        return (episode.position, episode.playedAt != nil)
    }

    private func play(_ guid: String, at timestamp: Int64, position: Int, total: Int = 1800) -> EpisodeAction {
        EpisodeAction(
            podcast: "https://feeds.example.com/show.xml", episode: "https://elsewhere.example/x.mp3", guid: guid, action: .play, timestamp: timestamp,
            started: 0, position: position, total: total, device: "phone")
    }

    /// A phone with a wrong clock (the year 9999): its play counts at the time it first arrived, so
    /// what is heard here afterwards wins, however often the play comes back (the overlap window).
    func testAPlayFromTheFutureNeverOutranksWhatHappensLater() throws {
        let episodes = try subscribe()
        try login()
        let now = Date().timeIntervalSince1970
        let future = play("g1", at: 253_370_764_800, position: 100)
        XCTAssertEqual(try store.sync.applyPlays([future], now: now - 1000).positions, 1)
        XCTAssertEqual(try heard(episodes[0].id).position, 100)
        try store.sync.recordListening(episode: episodes[0].id, started: 100, position: 500, total: 1800, reachedEnd: false)
        for later in [now, now + 3600, now + 86_400 * 365] {
            XCTAssertEqual(try store.sync.applyPlays([future], now: later), SyncStore.AppliedPlays(), "pulled again at \(later)")
        }
        XCTAssertEqual(try heard(episodes[0].id).position, 500)
        // Within the skew, a time slightly ahead is taken as it is.
        let ahead = play("g2", at: Int64(now) + 60, position: 30)
        XCTAssertEqual(try store.sync.applyPlays([ahead], now: now).positions, 1)
    }

    /// Played is judged against the episode's own duration when the feed gives one (another device's
    /// `total` may be another length); a later play before the end makes a played episode unplayed,
    /// and the earlier mark, seen again, changes nothing: every device ends the same.
    func testOneRuleForPlayedAndPosition() throws {
        let episodes = try subscribe()
        try login()
        let now = Date().timeIntervalSince1970
        let t = Int64(now) - 7200
        // 1790 of a "3600" total on an 1800 s episode: heard to its end here.
        XCTAssertEqual(try store.sync.applyPlays([play("g1", at: t, position: 1790, total: 3600)], now: now).played, 1)
        XCTAssertTrue(try heard(episodes[0].id).played)
        // Another device, not knowing, listens 4 s later on: not played, at 4 s.
        let applied = try store.sync.applyPlays([play("g1", at: t + 60, position: 4)], now: now)
        XCTAssertEqual([applied.positions, applied.unplayed], [1, 1])
        XCTAssertEqual(try heard(episodes[0].id).position, 4)
        XCTAssertFalse(try heard(episodes[0].id).played)
        // Both again, in any order: nothing changes.
        XCTAssertEqual(
            try store.sync.applyPlays([play("g1", at: t + 60, position: 4), play("g1", at: t, position: 1790, total: 3600)], now: now), SyncStore.AppliedPlays()
        )
        XCTAssertFalse(try heard(episodes[0].id).played)
    }
}
