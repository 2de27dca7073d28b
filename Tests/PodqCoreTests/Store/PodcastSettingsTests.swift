import XCTest

@testable import PodqCore

/// A podcast's own rules: what `podq set` accepts, what auto-queue admits, and what cleanup selects.
final class PodcastSettingsTests: XCTestCase {
    func testValuesAreCheckedAndNamedBack() throws {
        var rules = PodcastSettings()
        try rules.set("min-duration", "1h30m")
        try rules.set("size-budget", "1.5G")
        try rules.set("keep", "5")
        try rules.set("auto-queue", "off")
        XCTAssertEqual(rules.minDuration, 5400)
        XCTAssertEqual(rules.sizeBudget, 1_610_612_736)
        XCTAssertEqual(rules.pairs.map(\.key), ["auto-queue", "min-duration", "keep", "size-budget"])
        XCTAssertEqual(rules.pairs.first { $0.key == "size-budget" }?.value, "1.5G")
        XCTAssertEqual(PodcastSettings.seconds("45s"), 45)
        XCTAssertEqual(PodcastSettings.seconds("600"), 600)
        XCTAssertNil(PodcastSettings.seconds("10x"))
        XCTAssertNil(PodcastSettings.seconds("m"))
        XCTAssertNil(PodcastSettings.seconds("10m5"))
        XCTAssertEqual(PodcastSettings.size("500M"), 524_288_000)
        XCTAssertEqual(PodcastSettings.size("2GiB"), 2_147_483_648)
        XCTAssertNil(PodcastSettings.size("0"))
        XCTAssertNil(PodcastSettings.size("-1G"))
        XCTAssertThrowsError(try rules.set("keep", "0"))
        XCTAssertThrowsError(try rules.set("download-folder", "relative/path"))
        XCTAssertThrowsError(try rules.set("include", "[")) { XCTAssertTrue("\($0)".contains("does not compile")) }
        try rules.set("keep", "")
        try rules.set("min-duration", " ")
        XCTAssertNil(rules.keep)
        XCTAssertNil(rules.minDuration)
        try rules.set("auto-queue", "")
        try rules.set("size-budget", "")
        XCTAssertTrue(rules.isEmpty)
    }

    func testAutoQueueAdmitsByTitleAndDuration() throws {
        var rules = PodcastSettings()
        XCTAssertTrue(rules.admits(title: "anything", duration: 1))
        try rules.set("include", "interview")
        try rules.set("exclude", "part 2")
        try rules.set("min-duration", "20m")
        XCTAssertTrue(rules.admits(title: "An INTERVIEW with X", duration: 1500))
        XCTAssertTrue(rules.admits(title: "An interview with X", duration: nil), "a duration the feed does not give lets it through")
        XCTAssertFalse(rules.admits(title: "A chat", duration: 1500))
        XCTAssertFalse(rules.admits(title: "Interview, Part 2", duration: 1500))
        XCTAssertFalse(rules.admits(title: "Interview", duration: 1199))
    }

    func testTheRecordsAutoQueueFollowsItsOwnRuleFirst() throws {
        var p = PodcastRecord(title: "T", url: "http://h/f.xml", autoQueue: true)
        XCTAssertTrue(p.autoQueues(config: false))
        var rules = p.rules
        try rules.set("auto-queue", "off")
        p.rules = rules
        XCTAssertFalse(p.autoQueues(config: true), "its own off wins over add --auto and the config")
        p.rules = PodcastSettings()
        XCTAssertNil(p.settings, "no rules: no JSON")
        p.autoQueue = false
        try rules.set("auto-queue", "")
        try rules.set("serial", "3")
        p.rules = rules
        XCTAssertTrue(p.autoQueues(config: false), "serial mode queues by itself")
        p.settings = "{not json"
        XCTAssertEqual(p.rules, PodcastSettings(), "a column that cannot be read is no rules")
    }

    func testCleanupSelectsByEachPodcastsOwnRule() throws {
        func candidate(_ id: Int64, podcast: Int64, day: Double, size: Int64 = 1000, played: Bool = false) -> CleanupCandidate {
            var row = DownloadRecord(id: id, position: id, url: "http://h/\(id)", title: "\(id)", destination: "/d/\(id).mp3")
            row.completedAt = day * 86_400
            row.commitSize = size
            return CleanupCandidate(download: row, podcastId: podcast, played: played)
        }
        let all = [
            candidate(1, podcast: 1, day: 1), candidate(2, podcast: 1, day: 2), candidate(3, podcast: 1, day: 3),
            candidate(4, podcast: 2, day: 1, size: 600), candidate(5, podcast: 2, day: 2, size: 600), candidate(6, podcast: 2, day: 3, size: 600),
            candidate(7, podcast: 3, day: 1, played: true), candidate(8, podcast: 3, day: 2), candidate(9, podcast: 4, day: 1),
        ]
        var keep = PodcastSettings(), budget = PodcastSettings(), serial = PodcastSettings()
        keep.keep = 1
        budget.sizeBudget = 1300
        serial.serial = 2
        let chosen = Cleanup.select(all, policy: CleanupPolicy(keepNewest: 5, unplayedToo: true), rules: [1: keep, 2: budget, 3: serial], now: 10 * 86_400)
        XCTAssertEqual(chosen.compactMap(\.download.id), [1, 2, 4, 7], "keep 1; the oldest past 1,300 bytes; the played one; podcast 4 keeps 5")
        // By default only played episodes go: of those, just 7. A podcast's own cleanup-unplayed opens its own.
        let played = Cleanup.select(all, policy: CleanupPolicy(keepNewest: 5), rules: [1: keep, 2: budget, 3: serial], now: 10 * 86_400)
        XCTAssertEqual(played.compactMap(\.download.id), [7], "nothing unplayed is deleted unless asked")
        var open = keep
        open.cleanupUnplayed = true
        let opened = Cleanup.select(all, policy: CleanupPolicy(keepNewest: 5), rules: [1: open, 2: budget, 3: serial], now: 10 * 86_400)
        XCTAssertEqual(opened.compactMap(\.download.id), [1, 2, 7])
        XCTAssertEqual(Cleanup.keptUnplayed(all, policy: CleanupPolicy(keepNewest: 5), rules: [1: keep, 2: budget, 3: serial], now: 10 * 86_400), 3)
        XCTAssertFalse(CleanupPolicy().isActive(with: [:]))
        XCTAssertTrue(CleanupPolicy().isActive(with: [1: keep]))
        XCTAssertFalse(CleanupPolicy().isActive(with: [1: PodcastSettings()]))
    }
}
