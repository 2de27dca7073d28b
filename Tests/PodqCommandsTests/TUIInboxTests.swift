import XCTest

@testable import PodqCommands

/// Answers of the show notes' search come back in any order: an older one never replaces a newer.
final class TUIInboxTests: XCTestCase {
    func testAnOlderSearchsAnswerNeverTakesTheNewersPlace() {
        let inbox = TUIInbox()
        let first = inbox.nextNotesSearch(), second = inbox.nextNotesSearch()
        inbox.post(notes: .init(needle: "hr", ids: [1]), number: second)
        inbox.post(notes: .init(needle: "h", ids: [1, 2]), number: first)
        XCTAssertEqual(inbox.takeNotesMatches()?.needle, "hr")
        inbox.post(notes: .init(needle: "h", ids: [1, 2]), number: first)
        XCTAssertNil(inbox.takeNotesMatches(), "taken or not, the newer answer stays the last")
    }
}
