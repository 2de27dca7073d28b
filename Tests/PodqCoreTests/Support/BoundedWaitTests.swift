import PodqBase
import Synchronization
import XCTest

final class BoundedWaitTests: XCTestCase {
    func testWorkThatFinishesInTimeIsWaitedFor() async {
        let done = Atomic<Bool>(false)
        let finished = await BoundedWait.run(within: .seconds(30)) {
            try? await Task.sleep(for: .milliseconds(20))
            done.store(true, ordering: .relaxed)
        }
        XCTAssertTrue(finished)
        XCTAssertTrue(done.load(ordering: .relaxed), "run returned before the work ended")
    }

    func testWorkThatNeverEndsIsLeftAtTheDeadline() async {
        // An await no cancellation ends: what a shutdown that never completes looks like.
        let finished = await BoundedWait.run(within: .milliseconds(100)) {
            await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
        }
        XCTAssertFalse(finished)
    }

    func testManyWaitsEachGetTheirOwnAnswer() async {
        await withTaskGroup(of: (Int, Bool).self) { group in
            for n in 0..<50 {
                group.addTask {
                    let finished = await BoundedWait.run(within: .milliseconds(n.isMultiple(of: 2) ? 30_000 : 50)) {
                        if n.isMultiple(of: 2) { return }
                        await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
                    }
                    return (n, finished)
                }
            }
            for await (n, finished) in group {
                XCTAssertEqual(finished, n.isMultiple(of: 2), "wait \(n)")
            }
        }
    }
}
