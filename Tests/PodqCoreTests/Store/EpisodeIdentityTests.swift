import PodqCore
import PodqSQLite
import PodqTestSupport
import XCTest

/// Which items of a feed are the same episode (docs/FEEDS.md, "Which episodes are the same").
final class EpisodeIdentityTests: XCTestCase {
    private var dir: TemporaryDirectory!
    override func setUp() { dir = TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    private func episode(_ guid: String?, _ url: String, _ title: String) -> FeedEpisode {
        FeedEpisode(guid: guid, title: title, enclosures: [Enclosure(url: url)])
    }

    func testTheKeyKeepsTheQueryAndDropsTrackingAndTheFragment() {
        XCTAssertEqual(EpisodeRecord.key(for: "https://h/get.php?id=1"), "https://h/get.php?id=1")
        XCTAssertNotEqual(EpisodeRecord.key(for: "https://h/get.php?id=1"), EpisodeRecord.key(for: "https://h/get.php?id=2"))
        XCTAssertEqual(EpisodeRecord.key(for: "https://h/a.mp3?utm_source=x&id=3&fbclid=y#t=10"), "https://h/a.mp3?id=3")
        XCTAssertEqual(EpisodeRecord.key(for: "https://h/a.mp3?utm_medium=rss"), "https://h/a.mp3")
    }

    func testGUIDsComeFirstAndARowMergedByAnOlderPodqComesApartOnRefresh() throws {
        let store = try QueueStore(path: dir.file("q.sqlite"))
        // What an older podq left: the four episodes merged into one row (GUID g1, the last URL and title).
        let (podcast, first) = try store.library.addPodcast(
            url: "https://h/feed", feed: Feed(title: "P", episodes: [episode("g1", "https://h/get.php?id=4", "Four")]),
            etag: nil, lastModified: nil, autoQueue: false)
        XCTAssertEqual(first.count, 1)
        let feed = Feed(title: "P", episodes: (1...4).reversed().map { episode("g\($0)", "https://h/get.php?id=\($0)", "Episode \($0)") })
        let new = try store.library.refreshPodcast(id: podcast.id, url: "https://h/feed", feed: feed, etag: nil, lastModified: nil)
        XCTAssertEqual(new.map(\.guid), ["g4", "g3", "g2"], "the three lost episodes come back as new")
        let rows = try store.library.episodes(podcastId: podcast.id)
        XCTAssertEqual(
            Dictionary(uniqueKeysWithValues: rows.map { ($0.episode.guid ?? "", $0.episode.url) }),
            ["g1": "https://h/get.php?id=1", "g2": "https://h/get.php?id=2", "g3": "https://h/get.php?id=3", "g4": "https://h/get.php?id=4"])
        XCTAssertEqual(try store.library.refreshPodcast(id: podcast.id, url: "https://h/feed", feed: feed, etag: nil, lastModified: nil).count, 0)
    }

    func testWithoutGUIDsTheWholeURLDecidesAndAGUIDAddedLaterAdoptsTheRow() throws {
        let store = try QueueStore(path: dir.file("q.sqlite"))
        let plain = Feed(
            title: "P",
            episodes: [
                episode(nil, "https://h/e.mp3?id=1", "One"), episode(nil, "https://h/e.mp3?id=2", "Two"),
                episode(nil, "https://h/e.mp3?id=2&utm_source=feed", "Two again"),
            ])
        let (podcast, added) = try store.library.addPodcast(url: "https://h/feed", feed: plain, etag: nil, lastModified: nil, autoQueue: false)
        XCTAssertEqual(added.count, 2)
        let withGUIDs = Feed(title: "P", episodes: [episode("a", "https://h/e.mp3?id=1", "One"), episode("b", "https://h/e.mp3?id=2", "Two")])
        XCTAssertEqual(try store.library.refreshPodcast(id: podcast.id, url: "https://h/feed", feed: withGUIDs, etag: nil, lastModified: nil).count, 0)
        XCTAssertEqual(Set(try store.library.episodes(podcastId: podcast.id).compactMap(\.episode.guid)), ["a", "b"])
    }
}

final class PlayedEpisodesStoreTests: XCTestCase {
    /// Played marks are the user's: a refresh that rewrites the episode keeps them.
    func testPlayedMarksSurviveARefreshAndCountWhatChanged() async throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = try QueueStore(path: dir.file("q.sqlite"))
        func feed(_ title: String) -> Feed {
            Feed(
                title: "P",
                episodes: [
                    FeedEpisode(guid: "g1", title: title, enclosures: [Enclosure(url: "https://h/1.mp3")]),
                    FeedEpisode(guid: "g2", title: "Two", enclosures: [Enclosure(url: "https://h/2.mp3")]),
                ])
        }
        let (podcast, added) = try await store.library.addPodcast(url: "https://h/feed", feed: feed("One"), etag: nil, lastModified: nil, autoQueue: false)
        let ids = added.compactMap(\.id)
        let setPlayed2 = try await store.library.setPlayed(episodeIds: [ids[0]], played: true)
        XCTAssertEqual(setPlayed2, 1)
        let setPlayed3 = try await store.library.setPlayed(episodeIds: ids, played: true)
        XCTAssertEqual(setPlayed3, 1, "only what changed")
        _ = try await store.library.setPlayed(episodeIds: [ids[1]], played: false)
        _ = try await store.library.refreshPodcast(id: podcast.id, url: "https://h/feed", feed: feed("One, renamed"), etag: nil, lastModified: nil)
        let listed = try await store.library.episodes(podcastId: podcast.id)
        XCTAssertEqual(listed.first { $0.episode.id == ids[0] }?.episode.title, "One, renamed")
        XCTAssertNotNil(listed.first { $0.episode.id == ids[0] }?.episode.playedAt, "kept through the refresh")
        XCTAssertNil(listed.first { $0.episode.id == ids[1] }?.episode.playedAt)
        let summaries = try await store.library.episodeSummaries()
        XCTAssertEqual(summaries.map(\.played), listed.map { $0.episode.playedAt != nil })
    }
}
