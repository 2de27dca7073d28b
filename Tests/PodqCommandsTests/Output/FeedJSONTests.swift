import Foundation
import PodqCore
import XCTest

@testable import PodqCommands
@testable import PodqSession

/// `FeedJSON` writes `podq parse --json` straight into bytes; it must say exactly what the general
/// ``JSONValue`` says for the same feed (sorted keys, the same escapes, nulls and redactions).
final class FeedJSONTests: XCTestCase {
    /// The reference: the feed as a ``JSONValue`` tree (what `podq parse --json` wrote before).
    private func reference(_ feed: Feed) -> String {
        JSONValue.object([
            "title": .string(feed.title),
            "link": .optional(feed.link),
            "description": .optional(feed.description),
            "repairs": .optional(feed.repairs.isEmpty ? nil : feed.repairs.summary),
            "episodes": .array(
                feed.episodes.map { e in
                    .object([
                        "guid": .optional(e.guid),
                        "title": .string(e.title),
                        "link": .optional(e.link),
                        "published": .optional(e.published.map { Int64($0.timeIntervalSince1970.rounded(.down)) }),
                        "duration": .optional(e.duration),
                        "enclosures": .array(
                            e.enclosures.map { .object(["url": .string($0.url), "type": .optional($0.type), "length": .optional($0.length)]) }),
                    ])
                }),
        ]).text
    }

    private static let pieces = [
        "", "a", "Episode 12: the part", "q\"uote", "back\\slash", "line\nbreak", "\u{1}\u{1B}[31m", "é", "🎧", "\u{202E}evil",
        "https://user:secret@host.example/feed", "mail@example.com", "\u{7F}", "\u{9B}", "tab\t", "ポッドキャスト", "@", "://",
    ]

    private func randomText(_ rng: inout SystemRandomNumberGenerator) -> String {
        (0..<Int.random(in: 0...3, using: &rng)).map { _ in Self.pieces.randomElement(using: &rng)! }.joined()
    }

    func testWritesWhatTheJSONValueTreeWrites() throws {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            var feed = Feed(title: randomText(&rng))
            if Bool.random(using: &rng) { feed.link = randomText(&rng) }
            if Bool.random(using: &rng) { feed.description = randomText(&rng) }
            if Bool.random(using: &rng) { feed.repairs.entities = Int.random(in: 1...3, using: &rng) }
            for _ in 0..<Int.random(in: 0...4, using: &rng) {
                var e = FeedEpisode(title: randomText(&rng))
                if Bool.random(using: &rng) { e.guid = randomText(&rng) }
                if Bool.random(using: &rng) { e.link = randomText(&rng) }
                if Bool.random(using: &rng) { e.published = Date(timeIntervalSince1970: Double.random(in: -1e9...4e9, using: &rng)) }
                if Bool.random(using: &rng) { e.duration = Int.random(in: 0...100_000, using: &rng) }
                for _ in 0..<Int.random(in: 0...3, using: &rng) {
                    e.enclosures.append(
                        Enclosure(
                            url: randomText(&rng), type: Bool.random(using: &rng) ? randomText(&rng) : nil,
                            length: Bool.random(using: &rng) ? Int64.random(in: -5...Int64.max, using: &rng) : nil))
                }
                feed.episodes.append(e)
            }
            let written = FeedJSON.encode(feed)
            XCTAssertEqual(written, reference(feed))
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(written.utf8)), written)
            XCTAssertFalse(written.contains("secret"), written)
        }
    }
}
