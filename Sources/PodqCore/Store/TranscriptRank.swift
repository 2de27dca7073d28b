/// How well a cue matches a search's phrase: FTS5's bm25 (k1 = 1.2, b = 0.75) of the phrase in the cue,
/// without the phrase's rarity (its IDF), which is the same for every cue of one search, so the order
/// is bm25's. Lower is better, as bm25() gives it.
///
/// Why not bm25() itself: FTS5 works out the IDF by counting every row that holds the phrase, in the
/// whole index, for each search. For a phrase of two words said everywhere that count was 190 of the
/// 208 ms a search took at 60 M words (issue 46); reading the window's cues and ranking them here takes
/// a tenth of it.
struct TranscriptRank {
    static let k1 = 1.2
    static let b = 0.75

    /// The search's words, folded as the index has them; the last one as a beginning when `prefix`.
    let words: [String]
    let prefix: Bool
    /// The index's mean cue length in tokens.
    let averageLength: Double
    /// The words' bytes, for ``asciiCount(_:in:prefix:)``: once a search, not once a cue.
    private let wordBytes: [[UInt8]]

    init(words: [String], prefix: Bool, averageLength: Double) {
        self.words = words
        self.prefix = prefix
        self.averageLength = averageLength
        wordBytes = words.map { Array($0.utf8) }
    }

    /// FTS5's own total of rows and tokens (its "averages" record, `<table>_data` row 1: a varint for
    /// the rows, then one for each column's tokens), as bm25() reads it. Nil when it cannot be read.
    static func averageLength(averagesRecord bytes: [UInt8]) -> Double? {
        var offset = 0
        guard let rows = varint(bytes, &offset), let tokens = varint(bytes, &offset), rows > 0 else { return nil }
        return Double(tokens) / Double(rows)
    }

    /// The rank of `text` for the words as a phrase: every place the phrase starts counts (as FTS5
    /// counts a phrase's instances), the cue's length is its tokens as `unicode61` cuts them.
    func rank(_ text: String) -> Double {
        let (found, length) = Self.asciiCount(wordBytes, in: text, prefix: prefix) ?? Self.count(words, in: text, prefix: prefix)
        let frequency = Double(found)
        let lengthNorm = 1 - Self.b + Self.b * Double(length) / max(averageLength, 1)
        return -(frequency * (Self.k1 + 1)) / (frequency + Self.k1 * lengthNorm)
    }

    /// The phrase's places and the cue's tokens, as `LibraryStore.tokens` cuts and folds them.
    static func count(_ words: [String], in text: String, prefix: Bool) -> (found: Int, length: Int) {
        let tokens = LibraryStore.tokens(text)
        var found = 0
        if !words.isEmpty, tokens.count >= words.count {
            for i in 0...(tokens.count - words.count)
            where words.indices.allSatisfy({ k in
                k == words.count - 1 && prefix ? tokens[i + k].folded.hasPrefix(words[k]) : tokens[i + k].folded == words[k]
            }) {
                found += 1
            }
        }
        return (found, tokens.count)
    }

    /// ``count(_:in:prefix:)`` for a cue of ASCII only, most of them, without a string a token: its
    /// tokens are runs of letters and digits, folded by lower-casing. Nil when the cue is not ASCII.
    static func asciiCount(_ words: [[UInt8]], in text: String, prefix: Bool) -> (found: Int, length: Int)? {
        var text = text
        return text.withUTF8 { bytes -> (found: Int, length: Int)? in
            var starts: [Int] = []
            var ends: [Int] = []
            var start = -1
            for (i, byte) in bytes.enumerated() {
                if byte >= 0x80 { return nil }
                let isToken = (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
                if isToken, start < 0 { start = i }
                if !isToken, start >= 0 {
                    starts.append(start)
                    ends.append(i)
                    start = -1
                }
            }
            if start >= 0 {
                starts.append(start)
                ends.append(bytes.count)
            }
            func matches(_ token: Int, _ word: [UInt8], wholly: Bool) -> Bool {
                let length = ends[token] - starts[token]
                guard wholly ? length == word.count : length >= word.count else { return false }
                for k in 0..<word.count {
                    var byte = bytes[starts[token] + k]
                    if byte >= 0x41 && byte <= 0x5A { byte |= 0x20 }
                    if byte != word[k] { return false }
                }
                return true
            }
            var found = 0
            if !words.isEmpty, starts.count >= words.count {
                for i in 0...(starts.count - words.count)
                where words.indices.allSatisfy({ k in matches(i + k, words[k], wholly: !(prefix && k == words.count - 1)) }) {
                    found += 1
                }
            }
            return (found, starts.count)
        }
    }

    /// SQLite's varint (FTS5 writes its records with it): 7 bits a byte, high bit set when more follow,
    /// the ninth byte whole.
    static func varint(_ bytes: [UInt8], _ offset: inout Int) -> UInt64? {
        var value: UInt64 = 0
        for n in 0..<9 {
            guard offset < bytes.count else { return nil }
            let byte = bytes[offset]
            offset += 1
            if n == 8 { return value << 8 | UInt64(byte) }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return value }
        }
        return nil
    }
}
