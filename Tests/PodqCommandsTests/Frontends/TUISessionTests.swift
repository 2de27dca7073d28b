import Foundation
import PodqCore
import PodqTestSupport
import PodqUI
import Synchronization
import XCTest

@testable import PodqCommands
@testable import PodqSession

/// The TUI's loop in-process (issue 31): a ``TestScreen`` plays the keys and keeps the frames, over a
/// real store, the real server and the real ``QueueSession``. The tmux tests stay as the end-to-end net.
@MainActor
final class TUISessionTests: XCTestCase {
    private var server: TestServer!
    private var dir: TemporaryDirectory!

    override func setUp() async throws {
        server = try await TestServer.start()
        dir = TemporaryDirectory()
    }

    override func tearDown() async throws {
        await server.stop()
        dir.remove()
    }

    /// A podcast of three episodes, two of them queued.
    private func context() throws -> QueueContext {
        try FileManager.default.createDirectory(atPath: dir.file("home"), withIntermediateDirectories: true)
        let context = try QueueContext.open(home: dir.file("home"), downloadDir: dir.file("out"), echoLog: false)
        // Published at noon UTC: the same date in every time zone.
        let episodes = (1...3).map { i in
            FeedEpisode(
                guid: "g\(i)", title: "Episode \(i)", published: Date(timeIntervalSince1970: 1_789_992_000 + Double(i) * 86_400),
                enclosures: [Enclosure(url: server.dataURL(size: 120_000, seed: UInt64(i), name: "e\(i).mp3").absoluteString)])
        }
        let (podcast, added) = try context.store.library.addPodcast(
            url: server.url("/static/show.xml").absoluteString,
            feed: Feed(title: "Loop Show", episodes: episodes), etag: nil, lastModified: nil,
            autoQueue: false)
        _ = try context.store.queue.add(
            added.prefix(2).map {
                NewDownload(
                    url: $0.url, title: "Loop Show — \($0.title)", podcast: podcast.title, destination: dir.file("out/\($0.title).mp3"),
                    folder: dir.file("out"), episodeId: $0.id)
            })
        return context
    }

    func testTheLoopDrawsTheQueueAndTheLibraryAndQuitsOnQ() async throws {
        let context = try context()
        let screen = TestScreen(
            width: 110, height: 16,
            script: [
                .type("2", after: "2 done"),
                .type("q", after: "Episode 3"),
            ])
        let code = try await TUISession.run(context: context, screen: { _ in screen })
        XCTAssertEqual(code, ExitCodes.success)
        XCTAssertNil(screen.stalled, "the script stopped at step \(screen.stalled ?? -1):\n\(screen.screen)")
        XCTAssertTrue(screen.restored)
        let downloads = try XCTUnwrap(screen.frames.last { $0.contains("2 done") })
        XCTAssertTrue(downloads.contains("Episode 1") && downloads.contains("Episode 2"), downloads)
        XCTAssertTrue(screen.screen.contains("Loop Show") && screen.screen.contains("Episode 3"), "the Episodes view:\n\(screen.screen)")
        for i in 1...2 {
            XCTAssertEqual(FileHash.sha256(path: dir.file("out/Episode \(i).mp3")), PatternSource(seed: UInt64(i), length: 120_000).sha256)
        }
    }

    /// `x` on a completed row asks first; `y` removes it, and the message line says so.
    func testAKeysLineComesBackThroughTheWorker() async throws {
        let context = try context()
        let screen = TestScreen(
            width: 110, height: 16,
            script: [
                .type("x", after: "2 done"),
                .type("y", after: "Remove"),
                .type("q", after: "removed d"),
            ])
        let code = try await TUISession.run(context: context, screen: { _ in screen })
        XCTAssertEqual(code, ExitCodes.success)
        XCTAssertNil(screen.stalled, "the script stopped at step \(screen.stalled ?? -1):\n\(screen.screen)")
        let downloadsCount = try await context.store.queue.downloads().count
        XCTAssertEqual(downloadsCount, 1)
    }

    /// The terminal hanging up mid-download stops the TUI as SIGHUP does: exit 130, the unfinished
    /// download kept with its partial file for the next start.
    func testATerminalThatHangsUpStopsAsASignalWithThePartialKept() async throws {
        let context = try context()
        _ = try await context.store.queue.add([
            NewDownload(
                url: server.url("/data/slow.mp3?size=2000000&seed=9&rate=100000").absoluteString, title: "Slow", podcast: nil,
                destination: dir.file("out/slow.mp3"),
                folder: dir.file("out"))
        ])
        let screen = TestScreen(width: 110, height: 16, script: [.hangUp(after: "2 done")])
        let code = try await TUISession.run(context: context, screen: { _ in screen })
        XCTAssertEqual(code, ExitCodes.interrupted)
        XCTAssertTrue(screen.restored)
        let storedDownloads = try await context.store.queue.downloads().first { $0.title == "Slow" }
        let slow = try XCTUnwrap(storedDownloads)
        XCTAssertEqual(slow.state, .queued, "it resumes on the next start")
        XCTAssertGreaterThan(slow.bytesReceived, 0)
    }

    /// Logs `context` in to `nextcloud` as bob, and serves the feed the phone will subscribe to.
    private func logIn(_ context: QueueContext, to nextcloud: NextcloudTestServer) throws {
        try "pw-tui".write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        try context.store.sync.saveSyncAccount(
            .init(server: nextcloud.base, flavour: .nextcloud, user: "bob", device: nil, passwordCommand: "cat '\(dir.file("pw"))'", keyring: false))
        server.serve(
            Array(
                ("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>From The Phone</title><item><title>P1</title><guid>p1</guid>"
                    + "<enclosure url=\"\(server.url("/data/p1.mp3").absoluteString)?size=2000\" type=\"audio/mpeg\" length=\"2000\"/></item></channel></rss>")
                    .utf8), as: "phone.xml")
    }

    /// Logged in, the TUI syncs once it runs (in the background: the frames go on) and again on `y`.
    func testTheTUISyncsWhenItStartsAndOnY() async throws {
        let nextcloud = try await NextcloudTestServer.start(users: ["bob": "pw-tui"])
        let context = try context()
        try logIn(context, to: nextcloud)
        let screen = TestScreen(
            width: 130, height: 16,
            script: [
                .type("3", after: "sync: sent 1 subscription change"),
                TestScreen.Step(.character("y")) { screen in
                    // The phone subscribes once podq's first sync is done; then `y`.
                    nextcloud.phone(user: "bob", subscribe: [self.server.url("/static/phone.xml").absoluteString])
                    return screen.contains("Loop Show")
                },
                .type("q", after: "From The Phone"),
            ])
        let code = try await TUISession.run(context: context, screen: { _ in screen })
        await nextcloud.stop()
        XCTAssertEqual(code, ExitCodes.success)
        XCTAssertNil(screen.stalled, "the script stopped at step \(screen.stalled ?? -1):\n\(screen.screen)")
        XCTAssertEqual(nextcloud.subscriptions(of: "bob").count, 2)
    }

    /// `sync = auto` syncs again every `sync-interval` of the loop's clock: here a manual one, moved by
    /// the loop's own waits, so a minute passes in about a second and the test waits for no real minute.
    func testTheTUISyncsAgainEverySyncIntervalOfItsClock() async throws {
        let nextcloud = try await NextcloudTestServer.start(users: ["bob": "pw-tui"])
        let context = try context()
        try "sync-interval = 1\n".write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        let configured = try QueueContext.open(home: dir.file("home"), downloadDir: dir.file("out"), echoLog: false)
        try logIn(context, to: nextcloud)
        let time = ManualTime()
        let started = Mutex<Double?>(nil)
        let screen = TestScreen(
            width: 130, height: 16,
            script: [
                TestScreen.Step(.character("3")) { screen in
                    // Once the first sync is done, the phone subscribes; no key asks for the next sync.
                    guard screen.contains("sync: sent 1 subscription change") else { return false }
                    nextcloud.phone(user: "bob", subscribe: [self.server.url("/static/phone.xml").absoluteString])
                    started.withLock { $0 = time.now }
                    return true
                },
                .type("q", after: "From The Phone"),
            ],
            time: time)
        let code = try await TUISession.run(context: configured, screen: { _ in screen }, clock: { time.now })
        await nextcloud.stop()
        XCTAssertEqual(code, ExitCodes.success)
        XCTAssertNil(screen.stalled, "the script stopped at step \(screen.stalled ?? -1):\n\(screen.screen)")
        let waited = time.now - (started.withLock { $0 } ?? time.now)
        XCTAssertGreaterThanOrEqual(waited, 55, "the second sync came with the interval, not before (\(waited) s of the loop's clock)")
        XCTAssertEqual(nextcloud.subscriptions(of: "bob").count, 2)
    }
}

extension TUISessionTests {
    /// The loop driven key by key on its own clock, each key's frame compared whole (trailing blanks
    /// aside): what a person sees, not a few words of it. Once the downloads are done the frames hold
    /// nothing that moves.
    func testEachKeysFrameIsTheWholeScreen() async throws {
        let context = try context()
        let time = ManualTime()
        let seen = Mutex<[String]>([])
        func step(_ key: Character, after text: String) -> TestScreen.Step {
            TestScreen.Step(.character(key)) { screen in
                guard screen.contains(text) else { return false }
                seen.withLock { $0.append(screen) }
                return true
            }
        }
        let screen = TestScreen(
            width: 100, height: 12, script: [step("j", after: "2 done"), step("2", after: "row 2/2"), step("q", after: "Episode 3")], time: time)
        let code = try await TUISession.run(context: context, screen: { _ in screen }, clock: { time.now })
        XCTAssertEqual(code, ExitCodes.success)
        XCTAssertNil(screen.stalled, "the script stopped at step \(screen.stalled ?? -1):\n\(screen.screen)")
        let frames = seen.withLock { $0 }.map { frame in
            frame.split(separator: "\n", omittingEmptySubsequences: false).map { String($0.reversed().drop { $0 == " " }.reversed()) }
        }
        let downloads = [
            " 1 Downloads (2)   2 Episodes (3)   3 Podcasts (1)",
            "STATE       TITLE                        PROGRESS            % RECEIVED / TOTAL    SPEED      ETA",
            "completed   Loop Show — Episode 1        ████████████████ 100% 120.0 KB / 120.0 KB -          -",
            "completed   Loop Show — Episode 2        ████████████████ 100% 120.0 KB / 120.0 KB -          -",
            "", "", "", "", "",
            " 0/3 active, 2 a host · 0 B/s · 0 queued · 0 failed · 2 done · row 1/2",
            "",
            "↑↓ select  Tab view  a add  p pause  c cancel  r retry  Enter next  K/J move  ? help  q quit",
        ]
        XCTAssertEqual(frames.first, downloads)
        var second = downloads
        second[9] = " 0/3 active, 2 a host · 0 B/s · 0 queued · 0 failed · 2 done · row 2/2"
        XCTAssertEqual(frames.dropFirst().first, second, "j moves the selection")
        let episodes = [
            " 1 Downloads (2)   2 Episodes (3)   3 Podcasts (1)",
            "STATE       DATE       LENGTH   SIZE      PODCAST              EPISODE",
            "new         2026-09-24                    Loop Show            Episode 3",
            "completed   2026-09-23                    Loop Show            Episode 2",
            "completed   2026-09-22                    Loop Show            Episode 1",
            "", "", "", "",
            " 0/3 active, 2 a host · 0 B/s · 0 queued · 0 failed · 2 done · row 1/3",
            "",
            "↑↓ select  Tab view  Enter queue  / search  f filter  Esc all  a add  u refresh  ? help  q quit",
        ]
        XCTAssertEqual(frames.last, episodes, "2 shows the Episodes view")
        XCTAssertEqual(frames.count, 3)
    }
}
