import FoundationEssentials
import Glibc
import PodqBase
import PodqSQLite

/// Transcripts in the store (issue 46): which episodes have one (`transcript`: where it was read
/// from, its format, and for one fetched without its episode the bytes themselves), and an SQLite
/// FTS5 index of their cues (`transcript_cue`), searched by `podq grep`.
///
/// A cue's rowid is its episode's id shifted left by 20 bits plus its place in the transcript
/// (``TranscriptLimits/cues`` is under 2^20), so an episode's cues are one range of rowids: replaced or
/// dropped without a scan. Words are matched as in the show notes (`unicode61 remove_diacritics 2`:
/// case and accents ignored); positions are kept (`detail=full`), so a phrase matches its words in
/// order and a hit's words can be marked. A trigger drops an episode's transcript with the episode.
extension LibraryStore {
    /// A transcript the store has for an episode.
    public struct TranscriptInfo: Sendable, Equatable {
        public var episodeId: Int64
        /// The file (a sidecar) or the URL it was read from.
        public var source: String
        public var format: TranscriptFormat
        public var cues: Int
        public var indexedAt: Double
        /// Whether the store keeps its bytes (fetched by `podq transcript`, the episode not downloaded).
        public var cached: Bool
    }

    /// One cue that matched a search, with its episode.
    public struct TranscriptHit: Sendable, Equatable {
        public var episodeId: Int64
        public var podcastId: Int64
        public var podcastTitle: String
        public var episodeTitle: String
        public var published: Double?
        public var start: Double?
        public var text: String
        /// Where the matched words are in `text` (ranges of its Unicode scalars).
        public var matches: [Range<Int>]
        /// bm25 of the phrase in the cue, without the phrase's rarity (the same for every hit of one
        /// search): lower is better (``TranscriptRank``).
        public var rank: Double
    }

    static let cueShift: Int64 = 20

    /// Stores `document` as `episodeId`'s transcript, replacing the one before; `body` is kept for a
    /// transcript fetched without its episode's file (nil: the sidecar on disk is the copy).
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func saveTranscript(episodeId: Int64, source: String, document: TranscriptDocument, body: [UInt8]?) throws(StoreError) {
        try write { db in
            let low = episodeId << Self.cueShift, high = low | ((1 << Self.cueShift) - 1)
            try db.execute(sql: "DELETE FROM transcript_cue WHERE rowid BETWEEN ? AND ?", arguments: [low, high])
            let insert = try db.cachedStatement(sql: "INSERT INTO transcript_cue(rowid, text, start) VALUES (?, ?, ?)")
            var index: Int64 = 0
            for cue in document.cues.prefix(Int(1 << Self.cueShift)) {
                try insert.execute(arguments: [low + index, cue.speaker.map { "\($0): \(cue.text)" } ?? cue.text, cue.start.map(Self.milliseconds)])
                index += 1
            }
            try db.execute(
                sql: """
                    INSERT INTO transcript(episodeId, source, format, body, cues, indexedAt) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT(episodeId) DO UPDATE SET source = excluded.source, format = excluded.format, body = excluded.body,
                        cues = excluded.cues, indexedAt = excluded.indexedAt
                    """,
                arguments: [
                    episodeId, source, document.format.rawValue, body.map { DatabaseValue.blob($0) } ?? .null, index, Date().timeIntervalSince1970,
                ])
        }
    }

    /// What the store has of `episodeId`'s transcript; nil when nothing.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func transcriptInfo(episodeId: Int64) throws(StoreError) -> TranscriptInfo? {
        try read { db in
            try Row.fetchOne(
                db, sql: "SELECT episodeId, source, format, body IS NOT NULL, cues, indexedAt FROM transcript WHERE episodeId = ?",
                arguments: [episodeId]
            ).map(Self.info)
        }
    }

    /// Every transcript the store has, by episode.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func transcriptInfos() throws(StoreError) -> [Int64: TranscriptInfo] {
        try read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT episodeId, source, format, body IS NOT NULL, cues, indexedAt FROM transcript")
            return Dictionary(rows.map(Self.info).map { ($0.episodeId, $0) }, uniquingKeysWith: { a, _ in a })
        }
    }

    /// The bytes kept of a fetched transcript (`podq transcript` of an episode not downloaded).
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func cachedTranscript(episodeId: Int64) throws(StoreError) -> (bytes: [UInt8], format: TranscriptFormat, source: String)? {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT body, format, source FROM transcript WHERE episodeId = ?", arguments: [episodeId]),
                case .blob(let bytes) = row[0] as DatabaseValue
            else { return nil }
            return (bytes, TranscriptFormat(rawValue: row[1]) ?? .text, row[2])
        }
    }

    /// An episode's cues as indexed, in time order (a speaker's name before the words).
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func transcriptCues(episodeId: Int64) throws(StoreError) -> [TranscriptCue] {
        try read { db in
            let low = episodeId << Self.cueShift, high = low | ((1 << Self.cueShift) - 1)
            return try Row.fetchAll(db, sql: "SELECT start, text FROM transcript_cue WHERE rowid BETWEEN ? AND ? ORDER BY rowid", arguments: [low, high]).map {
                TranscriptCue(start: ($0[0] as Int64?).map(Self.seconds), text: $0[1])
            }
        }
    }

    /// The cues whose words match `query` as a phrase (its words in order; when whole words give fewer
    /// than `limit`, the last one also as a beginning: "climate chan" finds "climate change"), the best
    /// `limit` by bm25, then newest
    /// episode first and in time order within one. When more than ``searchWindow`` cues match (a
    /// word said in every episode), the best are those of the episodes stored last. Empty when
    /// `query` has no word.
    @available(*, noasync, message: "in async code, await the twin of the same name")
    public func searchTranscripts(_ query: String, podcastId: Int64? = nil, limit: Int = 50) throws(StoreError) -> [TranscriptHit] {
        guard let exact = Self.phraseMatch(query, prefix: false), let prefixed = Self.phraseMatch(query, prefix: true) else { return [] }
        return try read { db in
            // The candidates: the matching cues of the episodes stored last, at most `window` of them
            // (FTS5 walks rowids down and stops), ranked as bm25 ranks them (TranscriptRank). Ranking
            // every match of a word said in every episode took 0.7 s at 12 M words; within the window
            // it is milliseconds. A phrase matches far fewer cues than the window: its ranking is over
            // all of them.
            // Whole words first; when they give fewer than `limit`, the last word also as a beginning
            // ("climate chan"). A prefix merges the lists of every word it begins (382 ms for a word said
            // everywhere at 60 M words), so it is asked only when the whole words are not enough.
            func window(_ match: String) throws -> [(rowid: Int64, text: String)] {
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT rowid, text FROM transcript_cue
                        WHERE transcript_cue MATCH ?1 AND (?2 IS NULL OR (rowid >> 20) IN (SELECT id FROM episode WHERE podcastId = ?2))
                        ORDER BY rowid DESC LIMIT ?3
                        """, arguments: [match, podcastId, Self.searchWindow]
                ).map { (rowid: $0[0] as Int64, text: $0[1] as String) }
            }
            var candidates = try window(exact)
            let asPrefix = candidates.count < limit
            if asPrefix { candidates = try window(prefixed) }
            let words = Self.words(query)
            let averages = try Row.fetchOne(db, sql: "SELECT block FROM transcript_cue_data WHERE id = 1").flatMap { row -> [UInt8]? in
                if case .blob(let bytes) = row[0] as DatabaseValue { bytes } else { nil }
            }
            let ranking = TranscriptRank(
                words: words, prefix: asPrefix, averageLength: averages.flatMap(TranscriptRank.averageLength(averagesRecord:)) ?? 12)
            let best = candidates.map { (rowid: $0.rowid, rank: ranking.rank($0.text)) }
                .sorted { $0.rank != $1.rank ? $0.rank < $1.rank : $0.rowid > $1.rowid }.prefix(limit)
            // Their text and episodes, for the few shown, by rowid: a second MATCH (FTS5's highlight())
            // would merge the words' lists again for each hit, 25 ms each for a word said everywhere.
            let detail = try db.cachedStatement(
                sql: """
                    SELECT c.start, c.text, e.podcastId, p.title, e.title, e.published
                    FROM transcript_cue c JOIN episode e ON e.id = c.rowid >> 20 JOIN podcast p ON p.id = e.podcastId
                    WHERE c.rowid = ?
                    """)
            var hits: [TranscriptHit] = []
            for candidate in best {
                guard let row = try Row.fetchOne(detail, arguments: [candidate.rowid]) else { continue }
                let text: String = row[1]
                hits.append(
                    TranscriptHit(
                        episodeId: candidate.rowid >> Self.cueShift, podcastId: row[2], podcastTitle: row[3], episodeTitle: row[4], published: row[5],
                        start: (row[0] as Int64?).map(Self.seconds), text: text, matches: Self.marks(words, in: text, prefix: asPrefix), rank: candidate.rank))
            }
            return hits.sorted { a, b in
                if a.episodeId != b.episodeId {
                    let x = a.published ?? 0, y = b.published ?? 0
                    return x != y ? x > y : a.episodeId > b.episodeId
                }
                return (a.start ?? 0) < (b.start ?? 0)
            }
        }
    }

    /// How many matching cues a search ranks at most (those of the episodes stored last).
    static let searchWindow = 5_000

    static func milliseconds(_ seconds: Double) -> Int64 { Int64((seconds * 1000).rounded()) }
    static func seconds(_ milliseconds: Int64) -> Double { Double(milliseconds) / 1000 }

    /// `query` as an FTS5 phrase: its runs of letters and digits, quoted, the last a prefix
    /// (`"climate chan"*`). Nothing typed can be read as FTS5 syntax. Nil when there is no word.
    static func phraseMatch(_ query: String, prefix: Bool = true) -> String? {
        let words = query.split(whereSeparator: { !($0.isLetter || $0.isNumber) }).prefix(32)
        guard !words.isEmpty else { return nil }
        return "\"" + words.joined(separator: " ") + (prefix ? "\"*" : "\"")
    }

    /// A query's words as the index has them: runs of letters and digits, case and accents folded.
    static func words(_ query: String) -> [String] {
        tokens(query.split(whereSeparator: { !($0.isLetter || $0.isNumber) }).prefix(32).joined(separator: " ")).map(\.folded)
    }

    /// `text`'s words as `unicode61` cuts them (``isTokenCharacter(_:)``), folded, with where each stands
    /// (in Unicode scalars).
    static func tokens(_ text: String) -> [(range: Range<Int>, folded: String)] {
        var tokens: [(range: Range<Int>, folded: String)] = []
        var start: Int?
        var run = String.UnicodeScalarView()
        var offset = 0
        func close() {
            if let from = start {
                // A mark with no letter before it is dropped by remove_diacritics (TextFold keeps it).
                let folded = TextFold.fold(String(String.UnicodeScalarView(run.drop { $0.properties.generalCategory == .nonspacingMark })))
                if !folded.isEmpty { tokens.append((from..<offset, folded)) }
            }
            start = nil
            run = String.UnicodeScalarView()
        }
        for scalar in text.unicodeScalars {
            if isTokenCharacter(scalar) {
                if start == nil { start = offset }
                run.append(scalar)
            } else {
                close()
            }
            offset += 1
        }
        close()
        return tokens
    }

    /// Where `words` stand in `text` as a phrase (the last one as a beginning), in Unicode scalars: the
    /// tokens are what SQLite's `unicode61` makes of it (runs of letters, marks and digits), folded as
    /// the query's words are. What `highlight()` would mark, without a second search.
    static func marks(_ words: [String], in text: String, prefix: Bool = true) -> [Range<Int>] {
        guard !words.isEmpty else { return [] }
        let tokens = Self.tokens(text)
        // Every place the phrase starts, as token ranges; overlapping ones merged (as highlight() does).
        var spans: [ClosedRange<Int>] = []
        for i in 0..<max(0, tokens.count - words.count + 1) {
            let found = words.indices.allSatisfy { k in
                k == words.count - 1 && prefix ? tokens[i + k].folded.hasPrefix(words[k]) : tokens[i + k].folded == words[k]
            }
            guard found else { continue }
            let span = i...(i + words.count - 1)
            if let last = spans.last, span.lowerBound <= last.upperBound {
                spans[spans.count - 1] = last.lowerBound...max(last.upperBound, span.upperBound)
            } else {
                spans.append(span)
            }
        }
        return spans.map { tokens[$0.lowerBound].range.lowerBound..<tokens[$0.upperBound].range.upperBound }
    }

    /// What `unicode61` takes into a word: letters, digits, private use and non-spacing marks (which
    /// `remove_diacritics` then drops), and any character Unicode 6.1 did not have (its tables know
    /// nothing of them: an emoji of Unicode 7 is a word, one of 6.1 a separator).
    static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        guard let age = properties.age, age.major < 6 || (age.major == 6 && age.minor <= 1) else { return true }
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .nonspacingMark, .decimalNumber, .letterNumber,
            .otherNumber, .privateUse:
            return true
        default:
            return false
        }
    }

    /// Text marked by `highlight()` with U+0001 and U+0002 (never in a cue: ``SafeText`` takes control
    /// characters out) as plain text and the marked ranges, in Unicode scalars.
    static func unmark(_ marked: String) -> (String, [Range<Int>]) {
        var text = String.UnicodeScalarView()
        var ranges: [Range<Int>] = []
        var start: Int?
        var count = 0
        for scalar in marked.unicodeScalars {
            switch scalar.value {
            case 1: start = count
            case 2:
                if let from = start, from < count { ranges.append(from..<count) }
                start = nil
            default:
                text.append(scalar)
                count += 1
            }
        }
        return (String(text), ranges)
    }

    private static func info(_ row: Row) -> TranscriptInfo {
        TranscriptInfo(
            episodeId: row[0], source: row[1], format: TranscriptFormat(rawValue: row[2]) ?? .text, cues: row[4], indexedAt: row[5], cached: row[3])
    }

    /// The migration: the transcripts, their cues' index, and the trigger that drops both with their episode.
    static func createTranscripts(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE transcript (
                    episodeId INTEGER PRIMARY KEY NOT NULL REFERENCES episode(id) ON DELETE CASCADE,
                    source TEXT NOT NULL, format TEXT NOT NULL, body BLOB, cues INTEGER NOT NULL, indexedAt DOUBLE NOT NULL);
                CREATE VIRTUAL TABLE transcript_cue USING fts5(text, start UNINDEXED, tokenize = 'unicode61 remove_diacritics 2', columnsize = 0);
                CREATE TRIGGER transcript_cue_delete AFTER DELETE ON episode BEGIN
                    DELETE FROM transcript_cue WHERE rowid BETWEEN old.id << 20 AND (old.id << 20) | 1048575;
                END;
                """)
    }
}
