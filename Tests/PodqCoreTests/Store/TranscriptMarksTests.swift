import PodqSQLite
import PodqServer
import PodqTestSupport
import XCTest

@testable import PodqCore

/// `podq grep` marks the words it found itself (a second FTS5 search per hit cost 25 ms for a word said
/// everywhere): on generated cues of every kind of word, its marks are what SQLite's `highlight()` marks.
final class TranscriptMarksTests: XCTestCase {
    func testTheMarksAreWhatHighlightMarks() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let db = try DatabaseQueue(path: dir.file("m.sqlite"))
        try db.write { try $0.execute(sql: "CREATE VIRTUAL TABLE t USING fts5(text, tokenize = 'unicode61 remove_diacritics 2')") }
        var random = SeededGenerator(seed: 4601)
        let vocabulary = [
            "climate", "Climate", "CLIMATES", "change", "changes", "Café", "cafe", "naïve", "it's", "l'été", "ÉTÉ", "x1", "2026", "ポッド", "e\u{301}te",
            "--", "&", "über", "Ubers", "İstanbul", "ǅemal", "🎙", "😀", "a", "a-b", "x\u{903}y", "\u{301}", "©", "$5",
        ]
        for round in 0..<3_000 {
            let text = (0..<Int.random(in: 1...14, using: &random)).map { _ in vocabulary.randomElement(using: &random)! }.joined(
                separator: [" ", " ", ", ", ". ", "—"].randomElement(using: &random)!)
            let query = (0..<Int.random(in: 1...2, using: &random)).map { _ in vocabulary.randomElement(using: &random)! }.joined(separator: " ")
            let prefix = round % 2 == 0
            guard let match = LibraryStore.phraseMatch(query, prefix: prefix) else { continue }
            let marked = try db.write { db -> String? in
                try db.execute(sql: "DELETE FROM t")
                try db.execute(sql: "INSERT INTO t(rowid, text) VALUES (1, ?)", arguments: [text])
                return try String.fetchOne(db, sql: "SELECT highlight(t, 0, char(1), char(2)) FROM t WHERE t MATCH ?", arguments: [match])
            }
            let mine = LibraryStore.marks(LibraryStore.words(query), in: text, prefix: prefix)
            XCTAssertEqual(mine, marked.map { LibraryStore.unmark($0).1 } ?? [], "round \(round): \(query.debugDescription) in \(text.debugDescription)")
        }
    }
}
