import CPattern

/// A podcast's `include` or `exclude` regular expression (PCRE2 syntax, case-insensitive, Unicode),
/// matched under a limit on the matcher's work: a pattern that backtracks without end on some title
/// (`(a+)+$` on "aaaa…!") gives up with ``Outcome/tooCostly`` in a few milliseconds instead of
/// holding a refresh (docs/DECISIONS.md, "Title patterns"). Compile it once and match every title.
public final class TitlePattern {
    /// What a match found.
    public enum Outcome: Sendable, Equatable {
        case match
        case noMatch
        /// The matcher gave up after ``stepLimit`` steps: the pattern is too costly for this title.
        case tooCostly
    }

    /// The matcher's steps one title may take. An ordinary pattern takes a few hundred on a long title;
    /// `(a+)+$` on 30 letters would take a billion.
    public static let stepLimit: UInt32 = 200_000

    /// The pattern as written.
    public let source: String
    private let code: UnsafeMutableRawPointer

    /// Compiles `source`.
    /// - Throws: ``Invalid`` with PCRE2's reason.
    public init(_ source: String) throws(Invalid) {
        var error = [CChar](repeating: 0, count: 256)
        var offset = 0
        let compiled = source.utf8CString.withUnsafeBufferPointer { pattern in
            podq_pattern_compile(pattern.baseAddress, pattern.count - 1, &error, error.count, &offset)
        }
        guard let compiled else {
            let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw Invalid(reason: reason, offset: offset)
        }
        self.source = source
        self.code = compiled
    }

    deinit { podq_pattern_free(code) }

    /// Why a pattern does not compile.
    public struct Invalid: Error, Sendable, Equatable {
        public var reason: String
        /// Where in the pattern (in bytes) PCRE2 stopped.
        public var offset: Int
    }

    /// Whether `title` has a match, within ``stepLimit`` steps.
    public func match(_ title: String) -> Outcome {
        var title = title
        let result = title.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { podq_pattern_match(code, $0.baseAddress, $0.count, Self.stepLimit) }
        }
        switch result {
        case 1: return .match
        case 0: return .noMatch
        default: return .tooCostly
        }
    }

    /// A title on which the pattern gives up, among titles made to trip nested repeats: runs of one
    /// character (each of the pattern's own letters and of common ones) and runs of the pattern's own
    /// words and of their pieces (`((ab)+)+$` gives up on "abab…ab!", never on "aaaa!"), each ended by
    /// one that does not fit, and by that and each of those characters; nil when it finishes on every
    /// one. `podq set` refuses a pattern that gives up here.
    public func costlyTitle() -> String? {
        var characters: [Character] = ["a", "0", " ", "-", "é", "x"]
        for character in source where character.isLetter || character.isNumber || character == " " {
            if !characters.contains(character) { characters.append(character) }
            if characters.count >= 24 { break }
        }
        // Each run also ended by "!" and one of the characters: a pattern that needs a literal after its
        // repeats ((x+x+)+y) is tried only on titles that hold it (PCRE2 skips the rest at once).
        let units = Self.units(of: source)
        // The ends: each character, and each of the pattern's words (a literal it needs after its repeats).
        let ends = characters.map { String($0) } + units
        for unit in characters.map({ String($0) }) + units {
            // 24 repeats (2^24 ways for a nested repeat), within a title's length of 200 characters.
            let run = String(repeating: unit, count: unit.count == 1 ? 48 : max(2, min(24, 200 / unit.count)))
            for title in [run + "!", run + "\u{1F399}", run] + ends.map({ run + "!" + $0 }) where match(title) == .tooCostly {
                return title
            }
        }
        return nil
    }

    /// The multi-character units a repeat in `source` may be made of: each run of letters, digits and
    /// spaces in it (a group's literal, `ab` in `((ab)+)+`), and each piece of 2 to 4 characters of
    /// such a run (`(ab|abc)+` repeats either); at most 24.
    static func units(of source: String) -> [String] {
        var runs: [String] = []
        var current = ""
        for character in source {
            if character.isLetter || character.isNumber || character == " " {
                current.append(character)
            } else {
                if current.count >= 2 { runs.append(current) }
                current = ""
            }
        }
        if current.count >= 2 { runs.append(current) }
        var units: [String] = []
        func add(_ unit: String) {
            if units.count < 24, !units.contains(unit) { units.append(unit) }
        }
        for run in runs { add(run) }
        for run in runs {
            let letters = Array(run)
            for length in 2...4 where length < letters.count {
                for start in 0...(letters.count - length) { add(String(letters[start..<start + length])) }
            }
        }
        return units
    }
}
