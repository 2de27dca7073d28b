import XCTest

@testable import PodqCore

/// The runner's mailbox counts what waits behind each input: a burst is planned once, at its end.
final class QueueMailboxTests: XCTestCase {
    func testEachInputTakenSaysHowManyWaitBehindIt() async {
        let mailbox = QueueMailbox<Int>()
        for i in 1...3 { mailbox.post(i) }
        var seen: [(Int, Int)] = []
        for await input in mailbox.inputs {
            seen.append((input, mailbox.took()))
            if input == 3 { mailbox.post(4) }
            if input == 4 { break }
        }
        XCTAssertEqual(seen.map(\.0), [1, 2, 3, 4], "every input, in order")
        XCTAssertEqual(seen.map(\.1), [2, 1, 0, 0], "the last of a burst, and one posted after it, see none waiting")
    }

    func testInputsPostedFromManyTasksAreAllCounted() async {
        let mailbox = QueueMailbox<Int>()
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<500 { group.addTask { mailbox.post(i) } }
        }
        var taken = 0
        for await _ in mailbox.inputs {
            taken += 1
            let left = mailbox.took()
            XCTAssertEqual(left, 500 - taken)
            if left == 0 { break }
        }
        XCTAssertEqual(taken, 500)
    }
}
