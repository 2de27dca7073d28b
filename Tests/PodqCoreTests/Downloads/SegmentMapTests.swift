import XCTest

@testable import PodqCore

/// The segment map's pure transitions, the shared table's reservations and cuts, and the host caps.
final class SegmentMapTests: XCTestCase {
    typealias Segment = SegmentMap.Segment

    func testFreeConnectionsCutTheFileIntoQuartersAndEveryMapCoversItExactly() {
        let table = SegmentTable(SegmentMap(segments: [Segment(start: 0, end: 100)], total: 100))
        XCTAssertEqual(table.take(), 0, "the first connection has the whole file")
        XCTAssertEqual(table.takeBySplitting(minimum: 10), 1)
        XCTAssertEqual(table.takeBySplitting(minimum: 10), 2)
        XCTAssertEqual(table.takeBySplitting(minimum: 10), 3)
        XCTAssertEqual(table.snapshot.text, "0-25:0,25-50:0,50-75:0,75-100:0")
        XCTAssertNil(table.takeBySplitting(minimum: 13), "no cut leaves a part under the minimum")
        XCTAssertEqual(SegmentMap(text: table.snapshot.text, total: 100), table.snapshot)
    }

    func testTheStoredFormRoundTripsAndRefusesEveryMapThatDoesNotCoverTheFile() {
        let map = SegmentMap(segments: [Segment(start: 50, end: 100, done: 7), Segment(start: 0, end: 50, done: 50)], total: 100)
        XCTAssertEqual(map.text, "0-50:50,50-100:7", "sorted")
        XCTAssertEqual(SegmentMap(text: map.text, total: 100), map)
        XCTAssertEqual(map.downloaded, 57)
        XCTAssertFalse(map.isComplete)
        for bad in [
            "", "0-50:0", "0-50:0,60-100:0", "0-60:0,50-100:0", "0-50:51,50-100:0", "0-50:-1,50-100:0", "50-100:0,0-50:0",
            "0-50:0,50-100", "0-50:0;50-100:0", "x-50:0,50-100:0", "0-0:0,0-100:0", "0-50:0,50-101:0",
        ] {
            XCTAssertNil(SegmentMap(text: bad, total: 100), bad)
        }
    }

    func testSpansAreTheWrittenPartsAsFractions() {
        let map = SegmentMap(segments: [Segment(start: 0, end: 50, done: 25), Segment(start: 50, end: 100, done: 0)], total: 100)
        XCTAssertEqual(map.spans, [0...0.25])
    }

    func testACutFallsHalfWayThroughWhatIsLeftBeyondWhatIsBeingWritten() {
        let segment = Segment(start: 0, end: 100, done: 20)
        XCTAssertEqual(segment.cutPoint(minimum: 10, beyond: 20), 60)
        XCTAssertEqual(segment.cutPoint(minimum: 10, beyond: 40), 70, "never inside the chunk being written")
        XCTAssertNil(segment.cutPoint(minimum: 41, beyond: 20), "both halves must be at least the minimum")
        XCTAssertNil(Segment(start: 0, end: 10, done: 10).cutPoint(minimum: 1, beyond: 10))
    }

    func testTheTableHandsOutSegmentsThenTheFarHalvesOfTheSlowest() {
        let table = SegmentTable(
            SegmentMap(
                segments: [
                    Segment(start: 0, end: 100, done: 100), Segment(start: 100, end: 200),
                    Segment(start: 200, end: 300, done: 30),
                ], total: 300))
        XCTAssertEqual(table.take(), 1, "the first with bytes left")
        XCTAssertEqual(table.take(), 2)
        XCTAssertNil(table.take())
        // Segment 2 has 70 left from 230; its connection reserves a chunk of 20.
        XCTAssertEqual(table.reserve(2, count: 20).offset, 230)
        XCTAssertEqual(table.takeBySplitting(minimum: 10), 3, "segment 1 has 100 left: it is cut")
        XCTAssertEqual(table.segment(1), Segment(start: 100, end: 150))
        XCTAssertEqual(table.segment(3), Segment(start: 150, end: 200))
        XCTAssertEqual(table.wrote(2, count: 20), false)
        // Each active segment now has 50 left: the first of them is cut.
        XCTAssertEqual(table.takeBySplitting(minimum: 10), 4)
        XCTAssertEqual(table.segment(4), Segment(start: 125, end: 150))
        // A chunk that crosses the segment's end is cut short there.
        XCTAssertEqual(table.reserve(2, count: 100).allowed, 50)
        XCTAssertTrue(table.wrote(2, count: 50))
        XCTAssertEqual(table.snapshot.text, "0-100:100,100-125:0,125-150:0,150-200:0,200-300:100")
        table.release(1)
        XCTAssertEqual(table.take(), 1, "a released segment with bytes left goes to the next free connection")
        XCTAssertNil(table.takeBySplitting(minimum: 1000))
    }

    func testHostCapsAndPoliteness() {
        let hosts = HostConnections(perDownload: 4, perHost: 2, politeHosts: ["example.org", ".cdn.test."])
        XCTAssertEqual(hosts.perHost, 4, "one download alone may use all its connections")
        hosts.open("a.test")
        XCTAssertTrue(hosts.openExtra("a.test", using: 1))
        XCTAssertTrue(hosts.openExtra("a.test", using: 2))
        XCTAssertTrue(hosts.openExtra("A.TEST", using: 3))
        XCTAssertFalse(hosts.openExtra("a.test", using: 4), "no more than perDownload for one download")
        hosts.open("a.test")
        XCTAssertFalse(hosts.openExtra("a.test", using: 1), "a second download shares the host's cap")
        hosts.close("a.test")
        hosts.close("a.test")
        XCTAssertTrue(hosts.openExtra("a.test", using: 1))
        XCTAssertTrue(hosts.isPolite("example.org"))
        XCTAssertTrue(hosts.isPolite("media.example.org"))
        XCTAssertTrue(hosts.isPolite("x.cdn.test"))
        XCTAssertFalse(hosts.isPolite("badexample.org"))
        XCTAssertFalse(hosts.openExtra("media.example.org", using: 1))
        hosts.learnOneConnection("B.test")
        XCTAssertFalse(hosts.openExtra("b.test", using: 1), "a host that answered 429 or 503 gets no more")
        XCTAssertFalse(HostConnections(perDownload: 1, perHost: 8).openExtra("c.test", using: 1))
    }

    /// `]` in the TUI raises the host's download cap, and its connection cap follows at once; `[`
    /// lowers it, never under one download's own connections.
    func testTheHostCapFollowsPerHostDownloads() {
        let hosts = HostConnections(perDownload: 2, perHost: 2)
        hosts.open("a.test")
        hosts.open("a.test")
        XCTAssertFalse(hosts.openExtra("a.test", using: 1), "two downloads hold the host's two connections")
        hosts.setPerHostDownloads(3)
        XCTAssertEqual(hosts.perHost, 3)
        XCTAssertTrue(hosts.openExtra("a.test", using: 1))
        XCTAssertFalse(hosts.openExtra("a.test", using: 1))
        hosts.setPerHostDownloads(1)
        XCTAssertEqual(hosts.perHost, 2, "a lone download keeps its own connections")
    }
}
