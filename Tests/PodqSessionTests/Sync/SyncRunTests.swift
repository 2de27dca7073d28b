import Foundation
import PodqCore
import PodqTestSupport
import Synchronization
import XCTest

@testable import PodqSession

/// The push's batches, split to find the one action a server refuses, on a server at the seam (the
/// real server's tests are SyncCommandTests).
final class SyncRunTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUp() async throws { dir = TemporaryDirectory() }
    override func tearDown() async throws { dir.remove() }

    /// A server that refuses any batch holding an episode named `bad` (422), or everything (`down`: 503).
    final class Refusing: SyncServer, Sendable {
        let batches = Mutex<[[String]]>([])
        let down: Bool
        init(down: Bool = false) { self.down = down }
        var flavour: SyncFlavour { .gpodder }
        func login(caption: String) async throws(SyncError) {}
        func subscriptions(since: Int64) async throws(SyncError) -> SubscriptionDelta { SubscriptionDelta(add: [], remove: [], timestamp: 10) }
        func allSubscriptions() async throws(SyncError) -> FeedList? { FeedList(urls: []) }
        func upload(add: [String], remove: [String]) async throws(SyncError) -> UploadResult { UploadResult(timestamp: 10) }
        func actions(since: Int64, plays: ([EpisodeAction]) async throws -> Void) async throws -> ActionsAnswer { ActionsAnswer(actions: [], timestamp: 10) }
        func upload(actions: [EpisodeAction]) async throws(SyncError) -> UploadResult {
            if down { throw .status(503, call: "the episode action upload", detail: "maintenance") }
            batches.withLock { $0.append(actions.map(\.episode)) }
            if actions.contains(where: { $0.episode.contains("bad") }) {
                throw .status(422, call: "the episode action upload", detail: "Input should be a valid string")
            }
            return UploadResult(timestamp: 10)
        }
    }

    private func context(actions: Int, bad: Int?) throws -> QueueContext {
        try FileManager.default.createDirectory(atPath: dir.file("home"), withIntermediateDirectories: true)
        let context = try QueueContext.open(home: dir.file("home"), downloadDir: dir.file("out"), echoLog: false)
        try context.store.sync.saveSyncAccount(
            .init(server: "https://s.example", flavour: .gpodder, user: "u", device: "d", passwordCommand: "cat pw", keyring: false))
        for i in 0..<actions {
            try context.store.sync.queueEpisodeAction(
                .init(
                    podcast: "https://f.example/feed", episode: "https://f.example/\(i == bad ? "bad" : "e")\(i).mp3", action: .play, timestamp: 100,
                    started: 0, position: 5, total: 10))
        }
        return context
    }

    func testARefusedBatchIsSplitUntilTheOneBadActionIsParked() async throws {
        let context = try context(actions: 61, bad: 37)
        let server = Refusing()
        let report = try await SyncRun(context: context, transport: MemoryTransport { _, _ in .init(status: 500) }).run(using: server)
        XCTAssertEqual(report.sentActions, 60)
        XCTAssertEqual(report.parked.count, 1)
        XCTAssertTrue(report.parked[0].contains("bad37") && report.parked[0].contains("422"), report.parked[0])
        let counts = try await context.store.sync.syncChangeCounts()
        XCTAssertEqual([counts.pending, counts.parked], [0, 1])
        let batches = server.batches.withLock { $0 }
        XCTAssertTrue(batches.allSatisfy { $0.count <= SyncRun.batchSize }, "\(batches.map(\.count))")
        XCTAssertLessThanOrEqual(batches.count, 3 + 2 * 5, "a halving search, not one request per action: \(batches.count)")
        XCTAssertEqual(Set(batches.flatMap { $0 }).count, 61)
        // The parked one is not sent again.
        let again = try await SyncRun(context: context, transport: MemoryTransport { _, _ in .init(status: 500) }).run(using: server)
        XCTAssertEqual(again.sentActions, 0)
        XCTAssertTrue(again.line.contains("sent nothing"), again.line)
    }

    /// A server that fails every upload (503): every change is kept for next time, the pull still runs,
    /// and the sync says so (exit 1: needs attention).
    func testAServerThatFailsUploadsLosesNothingAndStillPulls() async throws {
        let context = try context(actions: 5, bad: nil)
        let report = try await SyncRun(context: context, transport: MemoryTransport { _, _ in .init(status: 500) }).run(using: Refusing(down: true))
        XCTAssertTrue(report.needsAttention)
        XCTAssertEqual(report.leftPending, 5)
        XCTAssertTrue(report.line.contains("503") && report.line.contains("stay queued") == false && report.line.contains("5 changes not taken"), report.line)
        let syncChangeCountsPending = try await context.store.sync.syncChangeCounts().pending
        XCTAssertEqual(syncChangeCountsPending, 5)
        let syncAccountLastPull = try await context.store.sync.syncAccount()?.lastPull
        XCTAssertNotNil(syncAccountLastPull, "the pull ran after the failed push")
        let syncAccountContains = try await context.store.sync.syncAccount()?.lastError?.contains("503") == true
        XCTAssertTrue(syncAccountContains)
    }

    /// A server that lists what is not a web feed: nothing is read from the disk or subscribed, and the
    /// line says what was left out.
    func testOnlyWebFeedsFromAServerAreSubscribed() async throws {
        final class Listing: SyncServer, Sendable {
            var flavour: SyncFlavour { .nextcloud }
            func login(caption: String) async throws(SyncError) {}
            func subscriptions(since: Int64) async throws(SyncError) -> SubscriptionDelta {
                SubscriptionDelta(
                    add: ["/etc/passwd", "file:///etc/hosts", "javascript:alert(1)", "ftp://x.example/f", "\u{1B}[2J"], remove: [], timestamp: 10)
            }
            func allSubscriptions() async throws(SyncError) -> FeedList? { nil }
            func upload(add: [String], remove: [String]) async throws(SyncError) -> UploadResult { UploadResult(timestamp: 10) }
            func actions(since: Int64, plays: ([EpisodeAction]) async throws -> Void) async throws -> ActionsAnswer {
                ActionsAnswer(actions: [], timestamp: 10)
            }
            func upload(actions: [EpisodeAction]) async throws(SyncError) -> UploadResult { UploadResult(timestamp: 10) }
        }
        let context = try context(actions: 0, bad: nil)
        let report = try await SyncRun(context: context, transport: MemoryTransport { _, _ in .init(status: 500) }).run(using: Listing())
        XCTAssertEqual(report.subscribed, [])
        let podcastsCount = try await context.store.library.podcasts().count
        XCTAssertEqual(podcastsCount, 0)
        XCTAssertTrue(report.line.contains("could not subscribe to 5 listed feeds, not http(s)"), report.line)
        XCTAssertFalse(report.line.contains("\u{1B}"), report.line)
        XCTAssertEqual(SyncURL.webFeed("feed://a.example/f.xml"), "http://a.example/f.xml")
        XCTAssertEqual(SyncURL.webFeed("https://a.example/f.xml"), "https://a.example/f.xml")
    }
}
