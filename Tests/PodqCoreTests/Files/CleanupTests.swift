import Foundation
import PodqTestSupport
import XCTest

@testable import PodqCore

/// The cleanup rules on a real store and real files.
final class CleanupTests: XCTestCase {
    private var dir: TemporaryDirectory!
    private var store: QueueStore!
    private let day = 86_400.0
    private let now = 1_800_000_000.0

    override func setUp() async throws {
        dir = TemporaryDirectory("podq-cleanup")
        store = try QueueStore(path: dir.file("queue.sqlite"))
        try FileManager.default.createDirectory(atPath: dir.file("downloads"), withIntermediateDirectories: true)
    }

    override func tearDown() { dir.remove() }

    /// A podcast with `count` episodes, each downloaded `ages[i]` days ago into the download folder.
    @discardableResult
    private func podcast(_ name: String, ages: [Double]) throws -> [DownloadRecord] {
        let episodes = ages.indices.map { FeedEpisode(guid: "\(name)-\($0)", title: "ep \($0)", enclosures: [Enclosure(url: "http://h/\(name)/\($0).mp3")]) }
        let (_, added) = try store.library.addPodcast(
            url: "http://h/\(name).xml", feed: Feed(title: name, episodes: episodes), etag: nil, lastModified: nil, autoQueue: false)
        try FileManager.default.createDirectory(atPath: dir.file("downloads/\(name)"), withIntermediateDirectories: true)
        return try zip(added, ages).map { episode, age in
            let path = dir.file("downloads/\(name)/\(episode.title).mp3")
            try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: path))
            let row = try store.queue.add([NewDownload(url: episode.url, title: episode.title, podcast: name, destination: path, episodeId: episode.id)])[0]
            var info = stat()
            XCTAssertEqual(stat(path, &info), 0)
            return try store.queue.update(id: row.id) {
                $0.state = .completed
                $0.completedAt = now - age * day
                $0.committedFile = (path, FileIdentity(info))  // as podq's commit records it
            }
        }
    }

    private func exists(_ row: DownloadRecord) -> Bool { FileManager.default.fileExists(atPath: row.destination) }

    func testTheAgeRuleDeletesFilesDownloadedTooLongAgoAndTheirRows() async throws {
        let rows = try podcast("a", ages: [1, 10, 40, 100])
        let report = try await Cleanup.run(
            store: store, downloadFolder: dir.file("downloads"), policy: CleanupPolicy(olderThanDays: 30, unplayedToo: true), now: now)
        XCTAssertEqual(report.removed.map(\.id), [rows[2].id, rows[3].id])
        XCTAssertEqual(report.bytes, 2000)
        XCTAssertEqual(rows.map(exists), [true, true, false, false])
        let storedDownloads = try await store.queue.downloads().map(\.id)
        XCTAssertEqual(storedDownloads, [rows[0].id, rows[1].id], "the rows went with the files")
        let episodes = try await store.library.episodes()
        XCTAssertEqual(episodes.count, 4, "the episodes stay listed")
    }

    func testTheCountRuleKeepsTheNewestOfEachPodcast() async throws {
        let a = try podcast("a", ages: [5, 1, 3, 9])
        let b = try podcast("b", ages: [2])
        let report = try await Cleanup.run(
            store: store, downloadFolder: dir.file("downloads"), policy: CleanupPolicy(keepNewest: 2, unplayedToo: true), now: now)
        XCTAssertEqual(Set(report.removed.map(\.id)), [a[0].id, a[3].id], "the two downloaded longest ago")
        XCTAssertEqual(a.map(exists), [false, true, true, false])
        XCTAssertTrue(exists(b[0]), "another podcast's files are counted apart")
    }

    func testADryRunChangesNothing() async throws {
        let rows = try podcast("a", ages: [100, 200])
        let report = try await Cleanup.run(
            store: store, downloadFolder: dir.file("downloads"), policy: CleanupPolicy(olderThanDays: 1, unplayedToo: true), now: now, dryRun: true)
        XCTAssertEqual(report.removed.count, 2)
        XCTAssertTrue(rows.allSatisfy(exists))
        let downloadsCount = try await store.queue.downloads().count
        XCTAssertEqual(downloadsCount, 2)
    }

    /// Never touched: URLs queued by hand, unfinished downloads and their partials, files outside the
    /// folder (also through a podcast folder replaced by a symlink), and no rule means no cleanup.
    func testWhatIsNeverDeleted() async throws {
        let rows = try podcast("a", ages: [100, 100, 100])
        // By hand: a completed URL download, very old.
        let manualPath = dir.file("downloads/manual.mp3")
        try Data([1]).write(to: URL(fileURLWithPath: manualPath))
        let manual = try await store.queue.add(url: "http://h/manual.mp3", title: "manual", podcast: nil, destination: manualPath)
        _ = try await store.queue.update(id: manual.id) {
            $0.state = .completed; $0.completedAt = 0
        }
        // Unfinished: paused with a partial.
        _ = try await store.queue.update(id: rows[0].id) { $0.state = .paused }
        try Data([1]).write(to: URL(fileURLWithPath: rows[0].partialPath))
        // Outside: the row points into another folder.
        let outside = dir.file("elsewhere/kept.mp3")
        try FileManager.default.createDirectory(atPath: dir.file("elsewhere"), withIntermediateDirectories: true)
        try Data([1]).write(to: URL(fileURLWithPath: outside))
        _ = try await store.queue.update(id: rows[1].id) { $0.destination = outside }
        // Through a symlink: downloads/b -> elsewhere.
        try FileManager.default.createSymbolicLink(atPath: dir.file("downloads/b"), withDestinationPath: dir.file("elsewhere"))
        let linked = dir.file("elsewhere/linked.mp3")
        try Data([1]).write(to: URL(fileURLWithPath: linked))
        let through = dir.file("downloads/b/linked.mp3")
        _ = try await store.queue.update(id: rows[2].id) { $0.destination = through }

        let nothingYet = try await Cleanup.run(store: store, downloadFolder: dir.file("downloads"), policy: CleanupPolicy(), now: now).removed
        XCTAssertEqual(nothingYet, [])
        let report = try await Cleanup.run(
            store: store, downloadFolder: dir.file("downloads"), policy: CleanupPolicy(olderThanDays: 1, keepNewest: 0, unplayedToo: true), now: now)
        XCTAssertEqual(report.removed, [])
        XCTAssertEqual(report.keptOutside.count, 2)
        for path in [manualPath, rows[0].destination + ".part", outside, linked] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), path)
        }
        let downloadsCount2 = try await store.queue.downloads().count
        XCTAssertEqual(downloadsCount2, 4)
    }

    /// A file the user put at a downloaded episode's name (after moving podq's away) is not podq's: the
    /// rules never delete it, and its row stays to say so.
    func testAFileThatIsNotTheOnePodqWroteIsNeverDeleted() async throws {
        let rows = try podcast("mine", ages: [30, 20])
        try FileManager.default.removeItem(atPath: rows[0].destination)
        try Data("my own notes".utf8).write(to: URL(fileURLWithPath: rows[0].destination))
        let report = try await Cleanup.run(
            store: store, downloadFolder: dir.file("downloads"), policy: CleanupPolicy(olderThanDays: 10, unplayedToo: true), now: now)
        XCTAssertEqual(report.removed.map(\.id), [rows[1].id])
        XCTAssertEqual(try String(contentsOfFile: rows[0].destination, encoding: .utf8), "my own notes")
        XCTAssertEqual(report.keptNotPodqs, [rows[0].destination], "said as not podq's file, not as outside the folder")
        XCTAssertEqual(report.keptOutside, [])
        XCTAssertFalse(exists(rows[1]))
        let storedDownload = try await store.queue.download(id: rows[0].id)
        XCTAssertNotNil(storedDownload)
    }

    /// By default the rules delete played episodes only: an episode never heard stays, however old.
    func testOnlyPlayedEpisodesGoUnlessAsked() async throws {
        let rows = try podcast("heard", ages: [40, 35, 1])
        _ = try await store.library.setPlayed(episodeIds: [rows[1].episodeId!], played: true)
        let report = try await Cleanup.run(store: store, downloadFolder: dir.file("downloads"), policy: CleanupPolicy(olderThanDays: 30), now: now)
        XCTAssertEqual(report.removed.map(\.id), [rows[1].id], "the played one of the two old ones")
        XCTAssertEqual(report.keptUnplayed, 1)
        XCTAssertTrue(exists(rows[0]))
        XCTAssertFalse(exists(rows[1]))
    }
}
