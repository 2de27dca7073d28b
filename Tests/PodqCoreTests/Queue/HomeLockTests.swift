import PodqCore
import PodqTestSupport
import XCTest

final class HomeLockTests: XCTestCase {
    func testASecondHolderIsToldWhoHasIt() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let first = HomeLock(home: dir.path)
        XCTAssertNil(try first.acquire(command: "podq download"))
        XCTAssertTrue(first.isHeld)
        let second = HomeLock(home: dir.path)
        let holder = try XCTUnwrap(try second.acquire())
        XCTAssertEqual(holder.pid, getpid())
        XCTAssertEqual(holder.command, "podq download")
        XCTAssertEqual(second.currentHolder(), holder)
        first.release()
        XCTAssertNil(second.currentHolder())
        XCTAssertNil(try second.acquire(), "free once released")
    }
}
