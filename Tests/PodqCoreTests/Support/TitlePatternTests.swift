import PodqCore
import XCTest

/// Title patterns through PCRE2 under a work limit: ordinary ones match as before (case and Unicode
/// aside), and the patterns that backtrack without end give up at once instead of hanging.
final class TitlePatternTests: XCTestCase {
    func testOrdinaryPatternsMatchCaselessAndInUnicode() throws {
        let interview = try TitlePattern("interview|q&a")
        XCTAssertEqual(interview.match("An INTERVIEW with X"), .match)
        XCTAssertEqual(interview.match("Q&A: listeners"), .match)
        XCTAssertEqual(interview.match("A chat"), .noMatch)
        XCTAssertEqual(try TitlePattern("^épisode \\d+").match("ÉPISODE 12 — la suite"), .match)
        XCTAssertEqual(try TitlePattern("\\bpart\\s*2\\b").match("Interview, Part 2"), .match)
        XCTAssertNil(interview.costlyTitle())
        XCTAssertNil(try TitlePattern("^(trailer|teaser)\\b").costlyTitle())
    }

    func testPatternsThatBacktrackWithoutEndGiveUp() throws {
        let title = String(repeating: "a", count: 200) + "!"
        for text in ["(a+)+$", "(a|aa)+$", "(\\w+\\s?)*$", "(.*a){12}$"] {
            let pattern = try TitlePattern(text)
            XCTAssertEqual(pattern.match(title), .tooCostly, text)
            XCTAssertNotNil(pattern.costlyTitle(), "\(text) is found costly before it is stored")
        }
        // Each title of a long feed, one after the other: every one gives up alone. (Without a "y"
        // anywhere, PCRE2 sees at once that nothing can match: no work to bound.)
        let pattern = try TitlePattern("(x+x+)+y")
        XCTAssertEqual(pattern.match(String(repeating: "x", count: 400)), .noMatch)
        XCTAssertNotNil(pattern.costlyTitle(), "found costly before it is stored, though a title must hold its y")
        for length in stride(from: 20, through: 400, by: 20) {
            XCTAssertEqual(pattern.match(String(repeating: "x", count: length) + "!y"), .tooCostly)
        }
    }

    func testAPatternThatDoesNotCompileSaysWhereAndWhy() {
        XCTAssertThrowsError(try TitlePattern("interview(")) { error in
            let invalid = error as? TitlePattern.Invalid
            XCTAssertEqual(invalid?.offset, 10)
            XCTAssertTrue(invalid?.reason.contains("missing closing parenthesis") == true, "\(String(describing: invalid))")
        }
    }

    func testSetRefusesACostlyPatternAndTheFilterCountsWhatGaveUp() throws {
        var rules = PodcastSettings()
        XCTAssertThrowsError(try rules.set("exclude", "(a+)+$")) { error in
            XCTAssertTrue("\(error)".contains("bounded time"), "\(error)")
        }
        XCTAssertNil(rules.exclude)
        // A stored one (from an earlier version) is left out title by title, counted, never a hang.
        rules.exclude = "(a+)+$"
        let filter = TitleFilter(rules)
        XCTAssertEqual(filter.check(title: String(repeating: "a", count: 200) + "!", duration: nil), .patternFailed(key: "exclude"))
        XCTAssertEqual(filter.check(title: "b", duration: nil), .admitted)
        XCTAssertEqual(filter.failures, ["exclude": 1])
    }

    /// Issue 43, point 8: the probe tried runs of one character only, so `((ab)+)+$` was stored and cost
    /// the step limit on every matching title. Runs of the pattern's own words and their pieces catch
    /// each such pattern; patterns that do not backtrack still pass.
    func testTheProbeTriesRunsOfThePatternsOwnWords() throws {
        for text in ["((ab)+)+$", "((ab)*)*x$", "((xy)+z?)+$", "(?:(ep)+)+\\d$", "(ab|abab)+$", "((the )+)+$"] {
            let pattern = try TitlePattern(text)
            XCTAssertNotNil(pattern.costlyTitle(), "\(text) is found costly before it is stored")
        }
        for text in ["^(ab)+$", "interview|q&a", "part (one|two)", "^(trailer|teaser)\\b", "ab(cd)?ef"] {
            XCTAssertNil(try TitlePattern(text).costlyTitle(), text)
        }
        var rules = PodcastSettings()
        XCTAssertThrowsError(try rules.set("include", "((ab)+)+$"), "podq set refuses it")
    }

    /// The whole refresh's pattern work is bounded, not only each title's: once the matcher gave up
    /// on `givingUpLimit` titles, the rest of a 100,000-item feed is left out without running it.
    func testTheWholeRefreshsPatternWorkIsBounded() {
        var rules = PodcastSettings()
        rules.include = "((ab)+)+$"  // stored by an older podq
        let filter = TitleFilter(rules)
        let title = String(repeating: "ab", count: 40) + "!"
        for _ in 0..<100_000 { XCTAssertEqual(filter.check(title: title, duration: nil), .patternFailed(key: "include")) }
        XCTAssertEqual(filter.failures, ["include": 100_000], "every title left out is counted, and said")
        XCTAssertEqual(filter.tried, TitleFilter.givingUpLimit, "the matcher ran on \(filter.tried) titles, not 100,000")
    }
}
