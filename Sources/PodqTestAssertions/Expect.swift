import PodqTestSupport
import XCTest

/// Waits until `condition` holds, as ``waitUntil(timeout:every:_:)`` does, and fails the test here when
/// it does not within `timeout` seconds: a wait that timed out never carries on unnoticed.
@discardableResult
public func expect(
    timeout: Double = 15, every: Int = 20, file: StaticString = #filePath, line: UInt = #line, _ condition: () throws -> Bool
) async rethrows -> Bool {
    let met = try await waitUntil(timeout: timeout, every: every, condition)
    if !met { XCTFail("waited \(timeout) s for a condition that never held", file: file, line: line) }
    return met
}

/// Waits until `tui`'s screen satisfies `predicate`, and fails the test here (with the screen) when it
/// does not within `timeout` seconds. Returns the last screen.
@discardableResult
public func expect(
    _ tui: Tmux, timeout: Double = 20, file: StaticString = #filePath, line: UInt = #line, _ predicate: (String) -> Bool
) async -> String {
    let (screen, ok) = await tui.waitFor(timeout: timeout, predicate)
    if !ok { XCTFail("the screen never showed what was waited for:\n\(screen)", file: file, line: line) }
    return screen
}
