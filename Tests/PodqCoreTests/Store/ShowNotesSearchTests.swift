import PodqCore
import PodqSQLite
import PodqTestSupport
import XCTest

/// Search in the show notes (`episode_notes`, SQLite FTS5): the notes' words, not their markup.
final class ShowNotesSearchTests: XCTestCase {
    private var dir: TemporaryDirectory!
    override func setUp() { dir = TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    private func feed(_ notes: [String?]) -> Feed {
        Feed(
            title: "P",
            episodes: notes.enumerated().map { i, notes in
                FeedEpisode(guid: "g\(i)", title: "Episode \(i)", description: notes, enclosures: [Enclosure(url: "https://h/\(i).mp3")])
            })
    }

    private func subscribe(_ store: QueueStore, _ notes: [String?]) throws -> (podcast: Int64, episodes: [Int64]) {
        let (podcast, added) = try store.library.addPodcast(url: "https://h/feed", feed: feed(notes), etag: nil, lastModified: nil, autoQueue: false)
        return (podcast.id, added.map { $0.id })
    }

    func testWordsOfTheNotesMatchByTheirBeginningWithoutCaseOrAccentsAndMarkupNeverMatches() async throws {
        let store = try QueueStore(path: dir.file("q.sqlite"))
        let (_, ids) = try subscribe(
            store,
            [
                "<p>We talk about <strong>Climate</strong> policy &amp; the Café scene.</p>",
                "Plain text: a GARDENING hour with <a href=\"https://example.org/rss\">our sponsor</a>",
                nil,
                "<p>climate again, and <em>gardens</em></p>",
            ])
        let matching = { (query: String) in try await store.library.episodesMatchingNotes(query).ids }
        try await XCTAssertEqualAsync(await matching("climate"), [ids[0], ids[3]])
        try await XCTAssertEqualAsync(await matching("CLIM"), [ids[0], ids[3]], "a word's beginning, any case")
        try await XCTAssertEqualAsync(await matching("cafe"), [ids[0]], "accents ignored")
        try await XCTAssertEqualAsync(await matching("garden"), [ids[1], ids[3]])
        try await XCTAssertEqualAsync(await matching("climate garden"), [ids[3]], "every word must match")
        for markup in ["strong", "em", "href", "amp"] {
            try await XCTAssertEqualAsync(await matching(markup), [], "“\(markup)” is markup, not a word of the notes")
        }
    }

    /// A refresh compares the notes in the store without reading them: the same feed again writes no
    /// episode row at all; one episode's new notes rewrite that row only, and the index follows.
    func testARefreshWritesOnlyWhatChanged() async throws {
        let store = try QueueStore(path: dir.file("q.sqlite"))
        let notes = ["<p>first gardens</p>", "<p>second climate</p>", nil]
        let (podcast, ids) = try subscribe(store, notes)
        let other = try DatabaseQueue(path: dir.file("q.sqlite"))
        try await other.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE touched (id INTEGER);
                    CREATE TRIGGER touched_episode AFTER UPDATE ON episode BEGIN INSERT INTO touched VALUES (new.id); END;
                    """)
        }
        let touched = { try await other.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM touched") } }
        _ = try await store.library.refreshPodcast(id: podcast, url: "https://h/feed", feed: feed(notes), etag: nil, lastModified: nil)
        try await XCTAssertEqualAsync(await touched(), [], "nothing changed, nothing written")
        _ = try await store.library.refreshPodcast(
            id: podcast, url: "https://h/feed", feed: feed(["<p>first gardens</p>", "<p>second orchards</p>", nil]),
            etag: nil, lastModified: nil)
        try await XCTAssertEqualAsync(await touched(), [ids[1]])
        try await XCTAssertEqualAsync(await store.library.episodesMatchingNotes("orchard").ids, [ids[1]])
        try await XCTAssertEqualAsync(await store.library.episodesMatchingNotes("climate").ids, [])
        let stored = try await store.library.episode(id: ids[1]).episode.description
        XCTAssertEqual(stored, "<p>second orchards</p>")
    }

    func testAnythingTypedIsSafeAsAQueryAndNothingIsFTSSyntax() async throws {
        let store = try QueueStore(path: dir.file("q.sqlite"))
        let (_, ids) = try subscribe(store, ["near or not, this is the notes' text: x-ray"])
        for query in ["", "\"", "*", "^", "(", "NEAR(a b)", "notes:", "-", "\"unterminated", "a:b", "AND", "{notes}: x"] {
            let found = try await store.library.episodesMatchingNotes(query).ids
            XCTAssertTrue(found.isEmpty || found == ids, "“\(query)” gave \(found)")
        }
        try await XCTAssertEqualAsync(await store.library.episodesMatchingNotes("NEAR OR").ids, ids, "words, not operators")
        try await XCTAssertEqualAsync(await store.library.episodesMatchingNotes("x-ray").ids, ids)
        try await XCTAssertEqualAsync(await store.library.episodesMatchingNotes("\"notes\"").ids, ids)
    }

    func testARefreshReindexesChangedNotesAndRemovingThePodcastDropsThem() async throws {
        let store = try QueueStore(path: dir.file("q.sqlite"))
        let (podcast, ids) = try subscribe(store, ["about volcanoes", "about glaciers"])
        _ = try await store.library.refreshPodcast(
            id: podcast, url: "https://h/feed", feed: feed(["about earthquakes", "about glaciers"]), etag: nil, lastModified: nil)
        try await XCTAssertEqualAsync(await store.library.episodesMatchingNotes("volcano").ids, [])
        try await XCTAssertEqualAsync(await store.library.episodesMatchingNotes("earthquake").ids, [ids[0]])
        try await XCTAssertEqualAsync(await store.library.episodesMatchingNotes("about").ids, ids)
        try await store.library.removePodcast(id: podcast)
        let rows = try await DatabaseQueue(path: dir.file("q.sqlite")).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM episode_notes") }
        XCTAssertEqual(rows, 0, "the trigger drops an episode's notes with it")
    }

    /// A library from before the index (schema v7): opening it indexes nothing (it is quick); the
    /// older episodes are indexed in batches afterwards, and a search says whether it saw them all.
    func testALibraryFromBeforeTheIndexIsIndexedInBatchesAfterItOpens() async throws {
        let path = dir.file("q.sqlite")
        var ids: [Int64] = []
        do {
            let store = try QueueStore(path: path)
            ids = try subscribe(store, ["<p>the first <b>lighthouse</b></p>", "the second lighthouse", "nothing here", "a lighthouse again"]).episodes
            try await XCTAssertEqualAsync(
                await store.library.episodesMatchingNotes("lighthouse"), .init(ids: [ids[0], ids[1], ids[3]], isComplete: true),
                "a new store's episodes are indexed as they come")
        }
        // Take the store back to v7: no tables, no trigger, no record of the migration.
        try await DatabaseQueue(path: path).write { db in
            try db.execute(
                sql: """
                    DROP TRIGGER episode_notes_delete; DROP TABLE episode_notes; DROP TABLE notes_index;
                    DELETE FROM grdb_migrations WHERE identifier LIKE 'v8:%';
                    """)
        }
        let store = try QueueStore(path: path)
        try await XCTAssertEqualAsync(await store.library.episodesMatchingNotes("lighthouse"), .init(ids: [], isComplete: false))
        try await XCTAssertEqualAsync(await store.library.indexNotesBatch(size: 2), true)
        try await XCTAssertEqualAsync(await store.library.episodesMatchingNotes("lighthouse"), .init(ids: [ids[0], ids[1]], isComplete: false))
        // A refresh meanwhile indexes what it changes (the last episode, ahead of the batches).
        _ = try await store.library.refreshPodcast(
            id: 1, url: "https://h/feed", feed: feed([nil, nil, nil, "a lighthouse, edited"]), etag: nil, lastModified: nil)
        try await XCTAssertEqualAsync(await store.library.episodesMatchingNotes("edited").ids, [ids[3]])
        try await XCTAssertEqualAsync(await store.library.indexNotesBatch(size: 2), false, "the last batch")
        try await XCTAssertEqualAsync(await store.library.indexNotesBatch(size: 2), false, "nothing left")
        try await XCTAssertEqualAsync(
            await store.library.episodesMatchingNotes("lighthouse"), .init(ids: [ids[3]], isComplete: true),
            "the refresh took the first notes away")
        try await XCTAssertEqualAsync(await store.library.episodesMatchingNotes("b").ids, [], "the old notes' markup is not indexed either")
    }
}

/// `XCTAssertEqual` for an expression that awaits.
func XCTAssertEqualAsync<T: Equatable>(
    _ expression: @autoclosure () async throws -> T, _ expected: T, _ message: String = "",
    file: StaticString = #filePath, line: UInt = #line
) async rethrows {
    let value = try await expression()
    XCTAssertEqual(value, expected, message, file: file, line: line)
}
