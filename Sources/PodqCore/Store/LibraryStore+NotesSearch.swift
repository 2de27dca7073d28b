import FoundationEssentials
import Glibc
import PodqSQLite

/// Search in the show notes: an SQLite FTS5 table, `episode_notes`, holds each episode's notes as
/// the plain text the detail pane shows (``ShowNotes``), so markup is never matched ("strong",
/// "href" and "amp" are not words of the notes). Its rowid is the episode's id.
///
/// It is written where the episode is: ``merge(_:podcastId:db:)`` indexes an episode that is new
/// or whose notes changed (a refresh that changes nothing writes nothing here), and a trigger
/// drops the row with its episode. Words are matched by their beginning, case and accents ignored
/// (`unicode61 remove_diacritics 2`); the index keeps no positions (`detail=none`), which makes it
/// a fraction of the text's size. `unicode61` splits words at spaces and punctuation, so a run of
/// Chinese or Japanese text is one word: its middle is found by the title search only.
///
/// The episodes stored before the index (or before a change of how notes become text) are indexed
/// afterwards, a batch per write, from the lowest id up: `notes_index.nextId` says where the next
/// batch starts, -1 when every episode is in. The TUI does it in the background
/// (``indexNotesBatch(size:)``); `podq episodes --search` first finishes it (``indexAllNotes()``).
/// 100,000 episodes with 90 MB of notes take about 4.3 s of batches; opening the store takes none.
extension LibraryStore {
    /// What a search of the show notes found: the episodes' ids, ascending, and whether every
    /// episode's notes were indexed when it ran (false: more may match later).
    public struct NotesSearchResult: Sendable, Equatable {
        public var ids: [Int64]
        public var isComplete: Bool
        public init(ids: [Int64], isComplete: Bool) {
            self.ids = ids
            self.isComplete = isComplete
        }
    }

    /// The episodes whose show notes have a word beginning with each word of `query`; none when
    /// `query` has no word. Read without blocking a thread.
    public func episodesMatchingNotes(_ query: String) async throws(StoreError) -> NotesSearchResult {
        let match = Self.notesMatch(query)
        return try await readAsync { db in try Self.search(match, db: db) }
    }

    /// ``episodesMatchingNotes(_:)`` for a command that runs once (`podq episodes --search`).
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func episodesMatchingNotesNow(_ query: String) throws(StoreError) -> NotesSearchResult {
        let match = Self.notesMatch(query)
        return try read { db in try Self.search(match, db: db) }
    }

    private static func search(_ match: String?, db: Database) throws -> NotesSearchResult {
        let complete = try Int64.fetchOne(db, sql: "SELECT nextId FROM notes_index") == -1
        guard let match else { return NotesSearchResult(ids: [], isComplete: complete) }
        let ids = try Int64.fetchAll(db, sql: "SELECT rowid FROM episode_notes WHERE episode_notes MATCH ? ORDER BY rowid", arguments: [match])
        return NotesSearchResult(ids: ids, isComplete: complete)
    }

    /// Indexes the notes of up to `size` more episodes stored before the index, in one write;
    /// true while more are left.
    @discardableResult
    public func indexNotesBatch(size: Int = 1000) async throws(StoreError) -> Bool {
        try await writeAsync { db in try Self.indexBatch(size: size, db: db) }
    }

    /// Indexes every episode not indexed yet.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func indexAllNotes() throws(StoreError) {
        while try write({ db in try Self.indexBatch(size: 5000, db: db) }) {}
    }

    private static func indexBatch(size: Int, db: Database) throws -> Bool {
        guard let next = try Int64.fetchOne(db, sql: "SELECT nextId FROM notes_index"), next >= 0 else { return false }
        let rows = try Row.fetchAll(db, sql: "SELECT id, description FROM episode WHERE id >= ? ORDER BY id LIMIT ?", arguments: [next, size])
        for row in rows {
            let description: String? = row[1]
            if description?.isEmpty == false { try indexNotes(episodeId: row[0], description: description, db: db) }
        }
        let last: Int64 = rows.last?[0] ?? next
        let more = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM episode WHERE id > ?)", arguments: [last]) ?? false
        try db.execute(sql: "UPDATE notes_index SET nextId = ?", arguments: [more ? last + 1 : -1])
        return more
    }

    /// `query` as an FTS5 expression: each run of letters and digits becomes a quoted prefix term
    /// (`"clim"*`), and the terms are joined by AND. Nothing typed can be read as FTS5 syntax
    /// (`NEAR`, `OR`, `-`, `^`, column filters, quotes). Nil when there is no word.
    static func notesMatch(_ query: String) -> String? {
        let words = query.split(whereSeparator: { !($0.isLetter || $0.isNumber) }).prefix(16)
        guard !words.isEmpty else { return nil }
        return words.map { "\"\($0)\"*" }.joined(separator: " AND ")
    }

    /// Indexes one episode's notes, replacing what was indexed for it.
    static func indexNotes(episodeId: Int64, description: String?, db: Database) throws {
        try db.execute(sql: "DELETE FROM episode_notes WHERE rowid = ?", arguments: [episodeId])
        let text = ShowNotes.paragraphs(description ?? "").joined(separator: "\n")
        guard !text.isEmpty else { return }
        try db.execute(sql: "INSERT INTO episode_notes(rowid, notes) VALUES (?, ?)", arguments: [episodeId, text])
    }

    /// The migration: the table, the trigger that drops a row with its episode, and the progress of
    /// indexing the episodes already stored (from the first; they are indexed later, in batches).
    static func createNotesIndex(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE VIRTUAL TABLE episode_notes USING fts5(notes, tokenize = 'unicode61 remove_diacritics 2', detail = none);
                CREATE TRIGGER episode_notes_delete AFTER DELETE ON episode BEGIN
                    DELETE FROM episode_notes WHERE rowid = old.id;
                END;
                CREATE TABLE notes_index (nextId INTEGER NOT NULL);
                INSERT INTO notes_index (nextId) VALUES (CASE WHEN EXISTS (SELECT 1 FROM episode) THEN 0 ELSE -1 END);
                """)
    }
}
