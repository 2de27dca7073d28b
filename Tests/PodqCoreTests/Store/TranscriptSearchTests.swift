import PodqCore
import PodqSQLite
import PodqServer
import PodqTestSupport
import XCTest

/// Transcripts in the store and `podq grep`'s search (`transcript_cue`, SQLite FTS5).
final class TranscriptSearchTests: XCTestCase {
    private var dir: TemporaryDirectory!
    override func setUp() { dir = TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    private func subscribe(_ store: QueueStore, url: String, title: String, published: [Double]) throws -> [Int64] {
        let feed = Feed(
            title: title,
            episodes: published.enumerated().map { i, time in
                FeedEpisode(
                    guid: "\(url)-\(i)", title: "\(title) \(i)", published: Date(timeIntervalSince1970: time),
                    enclosures: [Enclosure(url: "\(url)/\(i).mp3")])
            })
        return try store.library.addPodcast(url: url, feed: feed, etag: nil, lastModified: nil, autoQueue: false).episodes.map(\.id)
    }

    private func transcript(_ lines: [(Double, String)]) -> TranscriptDocument {
        TranscriptDocument(format: .vtt, cues: lines.map { TranscriptCue(start: $0.0, text: $0.1) })
    }

    func testAPhraseIsFoundWithItsTimeMarkedNewestEpisodeFirst() throws {
        let store = try QueueStore(path: dir.file("q.sqlite"))
        let a = try subscribe(store, url: "https://a.example/feed", title: "Show A", published: [1_000, 3_000])
        let b = try subscribe(store, url: "https://b.example/feed", title: "Show B", published: [2_000])
        try store.library.saveTranscript(
            episodeId: a[0], source: "/x/a0.vtt",
            document: transcript([(10, "We talk about Climate Change today."), (75, "More on climate and change."), (3723, "climate change again")]),
            body: nil)
        try store.library.saveTranscript(episodeId: a[1], source: "/x/a1.vtt", document: transcript([(5, "the CLIMATE CHANGES fast")]), body: nil)
        try store.library.saveTranscript(
            episodeId: b[0], source: "https://b.example/t.json", document: transcript([(1, "Le climat, café, climate change")]), body: [1, 2])

        let hits = try store.library.searchTranscripts("climate change")
        XCTAssertEqual(hits.map(\.episodeId), [a[1], b[0], a[0], a[0]], "newest episode first, in time order within one")
        XCTAssertEqual(hits.map(\.start), [5, 1, 10, 3723])
        XCTAssertEqual(hits.map(\.podcastTitle), ["Show A", "Show B", "Show A", "Show A"])
        XCTAssertEqual(hits[2].text, "We talk about Climate Change today.")
        XCTAssertEqual(hits[2].matches.map { Array(hits[2].text.unicodeScalars)[$0].map(String.init).joined() }, ["Climate Change"], "the phrase marked")
        XCTAssertEqual(try store.library.searchTranscripts("change climate").count, 0, "a phrase: its words in order")
        XCTAssertEqual(try store.library.searchTranscripts("cafe").map(\.episodeId), [b[0]], "accents ignored")
        XCTAssertEqual(try store.library.searchTranscripts("climate", podcastId: hits[1].podcastId).map(\.episodeId), [b[0]])
        XCTAssertEqual(try store.library.searchTranscripts("climate", limit: 2).count, 2)
        // Nothing typed is FTS5 syntax.
        for query in ["NEAR(climate change)", "climate OR x", "\"climate", "text:climate", "climate*", "-climate", "^climate", "()", ""] {
            XCTAssertNoThrow(try store.library.searchTranscripts(query), query)
        }
        XCTAssertEqual(try store.library.searchTranscripts("()"), [])

        // The store says what it has; the cached bytes come back.
        XCTAssertEqual(try store.library.transcriptInfo(episodeId: a[0])?.cues, 3)
        XCTAssertEqual(try store.library.transcriptInfo(episodeId: a[0])?.cached, false)
        XCTAssertEqual(try store.library.cachedTranscript(episodeId: b[0])?.bytes, [1, 2])
        XCTAssertEqual(try store.library.transcriptCues(episodeId: a[0]).map(\.start), [10, 75, 3723])
    }

    func testATranscriptSavedAgainReplacesItsCuesAndGoesWithItsEpisode() throws {
        let store = try QueueStore(path: dir.file("q.sqlite"))
        let ids = try subscribe(store, url: "https://a.example/feed", title: "Show", published: [1, 2])
        try store.library.saveTranscript(episodeId: ids[0], source: "s", document: transcript([(1, "old words"), (2, "more old")]), body: nil)
        try store.library.saveTranscript(episodeId: ids[1], source: "s", document: transcript([(1, "neighbour old")]), body: nil)
        try store.library.saveTranscript(episodeId: ids[0], source: "s", document: transcript([(3, "new words")]), body: nil)
        XCTAssertEqual(try store.library.searchTranscripts("old").map(\.episodeId), [ids[1]])
        XCTAssertEqual(try store.library.transcriptCues(episodeId: ids[0]).map(\.text), ["new words"])
        let podcast = try store.library.podcasts()[0]
        try store.library.removePodcast(id: podcast.id)
        XCTAssertEqual(try store.library.searchTranscripts("words"), [])
        XCTAssertNil(try store.library.transcriptInfo(episodeId: ids[1]))
        let rows = try DatabaseQueue(path: dir.file("q.sqlite")).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM transcript_cue") }
        XCTAssertEqual(rows, 0)
    }

    /// A word said in every cue of every episode: the search ranks the cues of the episodes stored
    /// last (a window), so it stays fast; a phrase that matches fewer cues is ranked over all of them.
    func testAWordSaidEverywhereIsRankedWithinTheEpisodesStoredLast() throws {
        let store = try QueueStore(path: dir.file("q.sqlite"))
        let ids = try subscribe(store, url: "https://a.example/feed", title: "Show", published: (0..<8).map { Double($0) * 1000 })
        for (n, id) in ids.enumerated() {
            let lines = (0..<1_000).map { (Double($0), $0 == 500 && n == 0 ? "the rare words here" : "the common word again and again") }
            try store.library.saveTranscript(episodeId: id, source: "s", document: transcript(lines), body: nil)
        }
        let common = try store.library.searchTranscripts("the", limit: 20)
        XCTAssertEqual(common.count, 20)
        let window = Set(ids.sorted().suffix(5))  // 5,000 cues: the five episodes stored last
        XCTAssertTrue(common.allSatisfy { window.contains($0.episodeId) }, "\(Set(common.map(\.episodeId)))")
        let rare = try store.library.searchTranscripts("the rare words")
        XCTAssertEqual(rare.map(\.episodeId), [ids[0]], "a phrase is found in any episode")
        XCTAssertEqual(rare.map(\.start), [500])
    }

    /// The rank is bm25's, without asking FTS5 for it (its IDF counted every row that holds the phrase:
    /// 190 ms for two words said everywhere): on generated cues (words repeated, accents, case,
    /// punctuation, lengths from 1 to 24 words), the best hits are those FTS5's bm25() ranks best, and
    /// each rank is bm25()'s divided by the one IDF of the search.
    func testTheBestHitsAreThoseBM25RanksBestOnGeneratedCues() throws {
        let store = try QueueStore(path: dir.file("q.sqlite"))
        let ids = try subscribe(store, url: "https://a.example/feed", title: "Show", published: [1_000, 2_000, 3_000])
        var random = SeededGenerator(seed: 4_646)
        let vocabulary = ["the", "climate", "change", "Climate", "CHANGE", "Été", "ete", "roses", "and", "l'été", "change,", "climates", "and"]
        let separators = [" ", " ", " ", ", ", " — ", "-", "… "]
        for id in ids {
            let lines = (0..<300).map { n in
                let count = Int.random(in: 1...24, using: &random)
                let text = (0..<count).map { _ in vocabulary.randomElement(using: &random)! + separators.randomElement(using: &random)! }.joined()
                return (Double(n), text)
            }
            try store.library.saveTranscript(episodeId: id, source: "s", document: transcript(lines), body: nil)
        }
        let database = try DatabaseQueue(path: dir.file("q.sqlite"))
        for query in ["climate change", "the", "ete", "and the", "change and climate", "climate chan", "roses roses"] {
            for limit in [1, 7, 40] {
                let hits = try store.library.searchTranscripts(query, limit: limit)
                // Whole words first; the last word also as a beginning when they give fewer than asked.
                let phrase = "\"" + query + "\""
                let whole = try database.read { db in
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM transcript_cue WHERE transcript_cue MATCH ?", arguments: [phrase]) ?? 0
                }
                let match = whole < limit ? phrase + "*" : phrase
                let expected = try database.read { db in
                    try Row.fetchAll(
                        db,
                        sql: """
                            SELECT rowid >> 20, start, bm25(transcript_cue) FROM transcript_cue WHERE transcript_cue MATCH ?
                            ORDER BY bm25(transcript_cue), rowid DESC LIMIT ?
                            """,
                        arguments: [match, limit]
                    ).map { (episodeId: $0[0] as Int64, start: Double($0[1] as Int64) / 1000, bm25: $0[2] as Double) }
                }
                XCTAssertEqual(
                    Set(hits.map { "\($0.episodeId)@\($0.start ?? -1)" }), Set(expected.map { "\($0.episodeId)@\($0.start)" }), "\(query), \(limit)")
                // bm25() = IDF × rank, one IDF for the search.
                let ratios = hits.compactMap { hit in expected.first { $0.episodeId == hit.episodeId && $0.start == hit.start }.map { $0.bm25 / hit.rank } }
                XCTAssertEqual(ratios.count, hits.count)
                if let first = ratios.first {
                    XCTAssertTrue(ratios.allSatisfy { abs($0 - first) <= abs(first) * 1e-9 }, "\(query): \(ratios)")
                }
            }
        }
    }
}
