import PodqTestSupport
import XCTest

/// Waits until `condition` holds, as ``waitUntil(timeout:every:_:)`` does, and fails the test here when
/// it does not within `timeout` seconds: a wait that timed out never carries on unnoticed.
@discardableResult
func expect(
    timeout: Double = 15, every: Int = 20, file: StaticString = #filePath, line: UInt = #line, _ condition: () throws -> Bool
) async rethrows -> Bool {
    let met = try await waitUntil(timeout: timeout, every: every, condition)
    if !met { XCTFail("waited \(timeout) s for a condition that never held", file: file, line: line) }
    return met
}
