import Dispatch
import Synchronization
import XCTest

@testable import PodqCore

/// The live scheduler runs every piece of work once, never before its time, on a tick of its grid:
/// work due within one tick shares that tick's single timer (what keeps fifty downloads' trailing
/// deliveries from arming a thousand timers a second).
final class ObservationSchedulerTests: XCTestCase {
    func testEveryWorkRunsOnceNeverEarlyOnATickOfTheGrid() {
        let scheduler = DispatchObservationScheduler()
        let tick = DispatchObservationScheduler.tick
        let runs = Mutex<[Int: (due: UInt64, ran: UInt64)]>([:])
        let done = expectation(description: "all ran")
        done.expectedFulfillmentCount = 200
        for index in 0..<200 {
            let delay = UInt64(index % 40) * 1_000_000 + 1
            let due = scheduler.now() + delay
            scheduler.schedule(afterNanoseconds: delay) {
                let ran = scheduler.now()
                runs.withLock { XCTAssertNil($0.updateValue((due, ran), forKey: index), "work \(index) ran twice") }
                done.fulfill()
            }
        }
        wait(for: [done], timeout: 10)
        let seen = runs.withLock { $0 }
        XCTAssertEqual(seen.count, 200)
        for (index, run) in seen {
            XCTAssertGreaterThanOrEqual(run.ran, run.due, "work \(index) ran before its time")
            // It ran at or after the tick it was given, which is at most one tick after its time.
            let slot = (run.due + tick - 1) / tick * tick
            XCTAssertGreaterThanOrEqual(run.ran, slot, "work \(index) ran before its tick")
        }
    }

    func testWorkDueWithinOneTickRunsTogether() {
        let scheduler = DispatchObservationScheduler()
        let threads = Mutex<[UInt64]>([])
        let done = expectation(description: "all ran")
        done.expectedFulfillmentCount = 50
        let start = scheduler.now()
        // All due in the same tick: they run one after another in one timer's call.
        let slotEnd = (start / DispatchObservationScheduler.tick + 10) * DispatchObservationScheduler.tick
        for _ in 0..<50 {
            let now = scheduler.now()
            scheduler.schedule(afterNanoseconds: slotEnd > now + 1 ? slotEnd - now - 1 : 1) {
                threads.withLock { $0.append(UInt64(pthread_self())) }
                done.fulfill()
            }
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(Set(threads.withLock { $0 }).count, 1, "one timer ran the tick's work on one thread")
    }
}
