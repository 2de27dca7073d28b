import Foundation

/// The one way a test waits for something to happen: `condition` polled every `every` milliseconds until
/// it holds or `timeout` seconds have passed; true when it held. No test sleeps a fixed time hoping
/// something happened, and none polls without an end.
public func waitUntil(timeout: Double = 15, every: Int = 20, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
    while try !condition() {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(every))
    }
    return true
}
