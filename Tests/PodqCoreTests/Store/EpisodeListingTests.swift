import PodqCore
import PodqTestSupport
import XCTest

/// `forEachEpisode`, the listing that streams (issue 30): the same episodes in the same order as the
/// whole read, without their notes, with the ledger and the notes' words answered by the store.
final class EpisodeListingTests: XCTestCase {
    private var dir: TemporaryDirectory!
    override func setUp() { dir = TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    /// Two podcasts with dated, undated and same-day episodes; notes on some; one episode queued, one
    /// in the ledger, one played.
    private func store() throws -> (QueueStore, [Int64]) {
        let store = try QueueStore(path: dir.file("q.sqlite"))
        var ids: [Int64] = []
        for p in 0..<2 {
            var episodes: [FeedEpisode] = []
            for i in 0..<30 {
                let notes: String? = i % 3 == 0 ? "<p>About <b>gardens</b> number \(i)</p>" : nil
                let day: Double = 1_790_000_000 + Double((i / 2) * 86_400)
                let published: Date? = i % 7 == 0 ? nil : Date(timeIntervalSince1970: day)
                let enclosure = Enclosure(url: "https://h/\(p)/\(i).mp3", type: "audio/mpeg", length: Int64(1000 + i))
                episodes.append(
                    FeedEpisode(
                        guid: "g\(p)-\(i)", title: "Episode \(i) of \(p)", description: notes, published: published,
                        enclosures: [enclosure]))
            }
            let (_, added) = try store.library.addPodcast(
                url: "https://h/\(p).xml", feed: Feed(title: "Show \(p)", episodes: episodes), etag: nil,
                lastModified: nil, autoQueue: false)
            ids += added.map { $0.id }
        }
        _ = try store.queue.add([NewDownload(url: "https://h/0/1.mp3", title: "t", destination: dir.file("1.mp3"), episodeId: ids[1])])
        _ = try store.library.markDownloaded(episodeIds: [ids[2]])
        _ = try store.library.setPlayed(episodeIds: [ids[4]], played: true)
        return (store, ids)
    }

    func testTheStreamIsTheWholeListingWithoutTheNotes() throws {
        let (store, ids) = try store()
        for podcast: Int64? in [nil, 1, 2] {
            let whole = try store.library.episodes(podcastId: podcast)
            var streamed: [LibraryStore.EpisodeListing] = []
            try store.library.forEachEpisode(podcastId: podcast) { streamed.append($0) }
            XCTAssertEqual(streamed.count, whole.count)
            for (s, w) in zip(streamed, whole) {
                var expected = w.episode
                expected.description = nil
                expected.digests = nil
                expected.transcripts = nil
                XCTAssertEqual(s.episode, expected)
                XCTAssertEqual(s.podcastTitle, w.podcastTitle)
                XCTAssertEqual(s.downloadState, w.downloadState)
            }
        }
        let ledger = try store.library.episodeIdsInLedger()
        try store.library.forEachEpisode { XCTAssertEqual($0.inLedger, ledger.contains($0.episode.id), "\($0.episode.title)") }
        XCTAssertEqual(ledger, [ids[2]])
    }

    func testTheNotesWordsComeFromTheIndex() throws {
        let (store, _) = try store()
        let matching = Set(try store.library.episodesMatchingNotesNow("garden").ids)
        XCTAssertEqual(matching.count, 20)
        var flagged: Set<Int64> = []
        try store.library.forEachEpisode(notesMatching: "GARD") { if $0.notesMatch { flagged.insert($0.episode.id) } }
        XCTAssertEqual(flagged, matching)
        try store.library.forEachEpisode(notesMatching: "b") { XCTAssertFalse($0.notesMatch, "markup is not a word") }
        try store.library.forEachEpisode(notesMatching: "\"(") { XCTAssertFalse($0.notesMatch, "no word: nothing matches") }
    }

    func testAPodcastsIdsNewestFirstTheLatestAndTheNeverQueued() throws {
        let (store, ids) = try store()
        let all = try store.library.episodes(podcastId: 1).map { $0.episode.id }
        XCTAssertEqual(try store.library.episodeIds(podcastId: 1), all)
        XCTAssertEqual(try store.library.episodeIds(podcastId: 1, latest: 5), Array(all.prefix(5)))
        XCTAssertEqual(try store.library.episodeIds(podcastId: 1, onlyNeverQueued: true), all.filter { $0 != ids[1] })
    }

    /// `--new` and `--updated` are answered by SQLite: the same episodes the full listing's states say.
    func testOnlyNewAndOnlyUpdatedAreTheListingsOwnStates() throws {
        let (store, ids) = try store()
        try store.library.markUpdatedUpstream(episodeId: ids[5], reason: "another file")
        var all: [LibraryStore.EpisodeListing] = []
        try store.library.forEachEpisode { all.append($0) }
        var new: [Int64] = [], updated: [Int64] = []
        try store.library.forEachEpisode(onlyNew: true) { new.append($0.episode.id) }
        try store.library.forEachEpisode(onlyUpdated: true) { updated.append($0.episode.id) }
        let expectedNew = all.filter { $0.downloadState == nil && !$0.inLedger && $0.episode.playedAt == nil }.map { $0.episode.id }
        XCTAssertEqual(new, expectedNew)
        XCTAssertEqual(new.count, 60 - 3, "one queued, one in the ledger, one played")
        XCTAssertEqual(updated, [ids[5]])
    }
}
