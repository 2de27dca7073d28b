import Foundation
import PodqCore
import PodqServer
import PodqTestSupport
import XCTest

/// Episode actions on the wire: written as the strictest server reads them, read as any server writes them.
final class EpisodeActionTests: XCTestCase {
    func testAPlayIsWrittenLowerCaseWithATextTimestampAndItsCounts() throws {
        let action = EpisodeAction(
            podcast: "https://f.example/feed", episode: "https://f.example/1.mp3", guid: "g1", action: .play, timestamp: 1_795_687_200,
            started: 0, position: 120, total: 3600)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(action)) as? [String: Any])
        XCTAssertEqual(json["action"] as? String, "play")
        XCTAssertEqual(json["timestamp"] as? String, "2026-11-26T10:00:00")
        XCTAssertEqual(json["started"] as? Int, 0)
        XCTAssertEqual(json["position"] as? Int, 120)
        XCTAssertEqual(json["total"] as? Int, 3600)
        XCTAssertEqual(json["guid"] as? String, "g1")
        let download = EpisodeAction(podcast: "a", episode: "b", action: .download, timestamp: 0, started: 1, position: 2, total: 3)
        let written = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(download)) as? [String: Any])
        XCTAssertNil(written["position"], "counts go with a play only")
    }

    func testAPlayedMarkIsAPlayToTheEnd() {
        let played = EpisodeAction.played(podcast: "f", episode: "e", guid: nil, duration: 1800, at: 5)
        XCTAssertEqual([played.started, played.position, played.total], [1800, 1800, 1800])
        XCTAssertTrue(played.reachesTheEnd)
        XCTAssertFalse(EpisodeAction(podcast: "f", episode: "e", action: .play, timestamp: 0, started: 0, position: 300, total: 1800).reachesTheEnd)
        XCTAssertTrue(EpisodeAction(podcast: "f", episode: "e", action: .play, timestamp: 0, started: 0, position: 1790, total: 1800).reachesTheEnd)
    }

    /// What servers write: Nextcloud's upper case and -1 for none, a number for the time, a zone or a fraction.
    func testEveryWayServersWriteAnActionIsRead() throws {
        let samples: [(String, Int64, Int?)] = [
            (#"{"podcast":"p","episode":"e","action":"PLAY","timestamp":"2026-11-26T10:00:00","started":-1,"position":-1,"total":-1}"#, 1_795_687_200, nil),
            (#"{"podcast":"p","episode":"e","action":"play","timestamp":1795687200,"position":5}"#, 1_795_687_200, 5),
            (#"{"podcast":"p","episode":"e","action":"Play","timestamp":"2026-11-26T10:00:00Z","position":5}"#, 1_795_687_200, 5),
            (#"{"podcast":"p","episode":"e","action":"play","timestamp":"2026-11-26T12:00:00+02:00","position":5}"#, 1_795_687_200, 5),
            (#"{"podcast":"p","episode":"e","action":"play","timestamp":"2026-11-26T10:00:00.123456","position":5}"#, 1_795_687_200, 5),
            (#"{"podcast":"p","episode":"e","action":"play","timestamp":null,"position":5}"#, 0, 5),
        ]
        for (json, seconds, position) in samples {
            let action = try JSONDecoder().decode(EpisodeAction.self, from: Data(json.utf8))
            XCTAssertEqual(action.action, .play, json)
            XCTAssertEqual(action.timestamp, seconds, json)
            XCTAssertEqual(action.position, position, json)
        }
        XCTAssertThrowsError(try JSONDecoder().decode(EpisodeAction.self, from: Data(#"{"podcast":"p","episode":"e","action":"flattr"}"#.utf8)))
    }

    /// Every time, written and read back, is itself (a seeded sample across 1970–2100, and the edges of days and years).
    func testTheWireTimeRoundTrips() {
        var generator = SeededGenerator(seed: 31)
        var times: [Int64] = [0, 59, 60, 86_399, 86_400, 951_782_400, 4_102_444_799]
        for _ in 0..<5000 { times.append(Int64.random(in: 0...4_102_444_799, using: &generator)) }
        for t in times {
            let text = EpisodeAction.text(t)
            XCTAssertEqual(text.count, 19, text)
            XCTAssertEqual(EpisodeAction.seconds(text), t, text)
        }
        for bad in ["", "2026-11-26", "2026-13-01T00:00:00", "2026-11-26T25:00:00", "x026-11-26T10:00:00", "2026/11/26 10:00:00"] {
            XCTAssertNil(EpisodeAction.seconds(bad), bad)
        }
    }
}
