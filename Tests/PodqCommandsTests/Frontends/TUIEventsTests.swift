import PodqUI
import XCTest

@testable import PodqCommands
@testable import PodqSession

final class TUIEventsTests: XCTestCase {
    /// Answers of the show notes' search come back in any order: an older one never replaces a newer.
    func testAnOlderSearchsAnswerNeverTakesTheNewersPlace() {
        let events = TUIEvents()
        let first = events.nextNotesSearch(), second = events.nextNotesSearch()
        events.post(notes: .init(needle: "hr", ids: [1]), number: second)
        events.post(notes: .init(needle: "h", ids: [1, 2]), number: first)
        XCTAssertEqual(events.drain(), [.notes(.init(needle: "hr", ids: [1]))])
        events.post(notes: .init(needle: "h", ids: [1, 2]), number: first)
        XCTAssertEqual(events.drain(), [], "taken or not, the newer answer stays the last")
    }

    /// Events from many threads arrive whole, each once, in each thread's order.
    func testEventsFromManyThreadsArriveOnceInOrder() async {
        let events = TUIEvents()
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for n in 0..<500 { events.post("\(thread) \(n)") }
                }
            }
        }
        var seen: [Int: Int] = [:]
        for case .message(let message) in events.drain() {
            let parts = message.text.split(separator: " ").compactMap { Int($0) }
            XCTAssertEqual(parts[1], seen[parts[0], default: 0], "thread \(parts[0])'s events in order")
            seen[parts[0]] = parts[1] + 1
        }
        XCTAssertEqual(seen.count, 8)
        XCTAssertTrue(seen.values.allSatisfy { $0 == 500 })
        XCTAssertEqual(events.drain(), [])
    }

    /// A control character from the network never reaches the message line.
    func testAMessageIsCleaned() {
        let events = TUIEvents()
        events.post("feed \u{1B}[2Jtitle")
        guard case .message(let message) = events.drain().first else { return XCTFail("no message") }
        XCTAssertFalse(message.text.contains("\u{1B}"))
    }
}
