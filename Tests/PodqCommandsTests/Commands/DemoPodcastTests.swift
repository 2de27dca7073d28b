import XCTest

@testable import PodqCommands
@testable import PodqSession

/// The bundled demo's pace: `make demo` opens it after a first build of minutes, so its live part must
/// last long enough to try the keys (it was over in 15 s; issue 41, point 12).
final class DemoPodcastTests: XCTestCase {
    func testTheDemoRunsAboutAMinuteAtItsOwnPace() throws {
        let demo = try DemoPodcast.load()
        // Three at a time (the demo's --jobs), in order: when each slot is free again.
        var slots = [0.0, 0.0, 0.0]
        for episode in demo.episodes {
            let seconds = Double(44 + episode.seconds * WAVTone.sampleRate * 2) / Double(demo.bytesPerSecond)
            let free = slots.indices.min { slots[$0] < slots[$1] }!
            slots[free] += seconds
        }
        let total = slots.max()!
        XCTAssertGreaterThanOrEqual(total, 50, "a minute or so of live bars to press keys in")
        XCTAssertLessThanOrEqual(total, 120, "and not so long that a demo drags")
        let first = Double(44 + demo.episodes[0].seconds * WAVTone.sampleRate * 2) / Double(demo.bytesPerSecond)
        XCTAssertGreaterThanOrEqual(first, 20, "the first row is still moving when a person gets to it")
    }
}
