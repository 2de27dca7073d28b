import Dispatch
import Foundation
import PodqCore
import PodqTestSupport
import PodqUI
import Synchronization
import XCTest

@testable import PodqCommands
@testable import PodqSession

/// The jump (issue 46), in-process: the TUI's loop with a ``TestScreen`` over a real store, the real
/// server and a real mpv (Debian's, no sound, no window). `t` fetches an episode's transcript from its
/// feed's link, `T` finds a phrase in every transcript, Enter plays the hit's episode from the hit's
/// second (mpv's own clock says where it started), the position is followed as `o` follows it, and
/// `t` on a hit opens that episode's transcript there.
@MainActor
final class TUITranscriptTests: XCTestCase {
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

    /// Loop Show: Garden Talk (d1; its transcript linked from the feed, fetched by `t`) and Weather
    /// Talk (d2; its transcript already in the store), 60 s of silence each, both queued; Late Talk,
    /// not downloaded, with a transcript linked.
    private func context() throws -> QueueContext {
        try FileManager.default.createDirectory(atPath: dir.file("home"), withIntermediateDirectories: true)
        // A remote control of the test's own beside podq's connection (`--input-ipc-server`): the driver's.
        try "player = mpv --no-video --ao=null --no-config --really-quiet --input-ipc-server=\(dir.file("remote.sock"))\n".write(
            toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        server.serve(silentWAV(seconds: 60), as: "talk.wav", type: "audio/wav")
        server.serve(
            Array(
                "WEBVTT\n\n00:00:01.000 --> 00:00:05.000\nWelcome to the garden.\n\n00:00:42.500 --> 00:00:46.000\nWe talk about climate change &amp; roses.\n"
                    .utf8),
            as: "garden.vtt", type: "text/vtt")
        server.serve(
            Array(
                (#"{"version":"1.2.0","chapters":[{"startTime":0,"title":"Intro"},{"startTime":30,"title":"Ad","toc":false},"#
                    + #"{"startTime":75.5,"title":"Late \u001b[31mnews"}]}"#).utf8),
            as: "late.json", type: "application/json+chapters")
        server.serve(Array("1\r\n00:00:03,000 --> 00:00:04,000\r\nLate, as ever.\r\n".utf8), as: "late.srt", type: "application/x-subrip")
        let context = try QueueContext.open(home: dir.file("home"), downloadDir: dir.file("out"), echoLog: false)
        let names = ["Garden Talk", "Weather Talk", "Late Talk"]
        let episodes = names.enumerated().map { i, name in
            var episode = FeedEpisode(
                guid: "g\(i)", title: name, published: Date(timeIntervalSince1970: 1_789_992_000 + Double(i) * 86_400), duration: 60,
                enclosures: [Enclosure(url: server.url("/static/talk.wav").absoluteString, type: "audio/wav")])
            if i == 0 { episode.transcripts = [Transcript(url: server.url("/static/garden.vtt").absoluteString, type: "text/vtt")] }
            if i == 2 {
                episode.transcripts = [Transcript(url: server.url("/static/late.srt").absoluteString, type: "application/x-subrip")]
                episode.chaptersURL = server.url("/static/late.json").absoluteString
            }
            if i == 1 { episode.chaptersURL = server.url("/static/gone.json").absoluteString }
            return episode
        }
        let (podcast, added) = try context.store.library.addPodcast(
            url: server.url("/static/show.xml").absoluteString, feed: Feed(title: "Loop Show", episodes: episodes), etag: nil, lastModified: nil,
            autoQueue: false)
        _ = try context.store.queue.add(
            added.prefix(2).map {
                NewDownload(
                    url: $0.url, title: "Loop Show — \($0.title)", podcast: podcast.title, destination: dir.file("out/\($0.title).wav"),
                    folder: dir.file("out"), episodeId: $0.id)
            })
        let weather = Array("WEBVTT\n\n00:00:20.000 --> 00:00:23.000\nClimate change, again.\n".utf8)
        try context.store.library.saveTranscript(
            episodeId: added[1].id, source: "https://example.org/weather.vtt", document: try TranscriptReader.read(weather, format: .vtt, duration: 60),
            body: weather)
        return context
    }

    /// Plays along with the mpv podq starts, `count` times, on its own thread (the TUI's main actor
    /// waits for the player), through the remote socket the test's player line gives mpv: where mpv
    /// started, read from its own clock, then quit.
    private final class MPVDriver: Sendable {
        let started = Mutex<[Double]>([])
        let socket: String
        init(socket: String) { self.socket = socket }

        func run(count: Int) {
            DispatchQueue.global().async { [self] in
                let deadline = Date().addingTimeInterval(120)
                while started.withLock({ $0.count }) < count, Date() < deadline {
                    guard let mpv = MPVRemote(socket: socket) else {
                        usleep(20_000)
                        continue
                    }
                    var at: Double?
                    for _ in 0..<500 where at == nil {
                        at = mpv.send(["get_property", "time-pos"]) as? Double  // none until the file is open
                        if at == nil { usleep(20_000) }
                    }
                    // A second of playing first: podq's follower has its connection by then.
                    usleep(1_200_000)
                    mpv.send(["quit"])
                    // The same path for every mpv: this one is gone once nothing answers there.
                    while MPVRemote(socket: socket) != nil, Date() < deadline { usleep(20_000) }
                    started.withLock { $0.append(at ?? -1) }
                }
            }
        }
    }

    func testAHitPlaysItsEpisodeFromItsSecondAndTOnAHitOpensItsTranscriptThere() async throws {
        let context = try context()
        let driver = MPVDriver(socket: dir.file("remote.sock"))
        driver.run(count: 2)
        var script: [TestScreen.Step] = [
            .type("2", after: "2 done"),
            // Garden Talk, the oldest, is the last row: its transcript is fetched from the feed's link.
            .type("G", after: "Late Talk"),
            .type("t"),
            .init(.escape, when: { $0.contains("2 lines from") }),
            .type("T", after: "Episodes"),
        ]
        script += "climate chan".map { TestScreen.Step.type($0) }
        script += [
            .init(.enter),
            // The newest hit first: Weather Talk's, at 0:00:20.
            .init(.enter, when: { $0.contains("2 hits in 2 episodes") }),
            // What was heard is stored, as after `o`, and said.
            .type("j", after: "d2: stopped at 0:2"),
            .type("t"),
            .init(.enter, when: { $0.contains("Transcript: Loop Show — Garden Talk") && $0.contains("2 lines from") }),
            .init(.escape, when: { $0.contains("d1: stopped at 0:4") }),
            .init(.escape, when: { $0.contains("Where every transcript says") }),
            // Late Talk is not downloaded: its transcript is fetched, and Enter says why it cannot play.
            .type("g"),
            .type("t"),
            .init(.enter, when: { $0.contains("Late, as ever.") }),
            .type("q", after: "e3 is not downloaded"),
            .type("q"),
        ]
        let screen = TestScreen(width: 120, height: 20, script: script, patience: 60)
        let code = try await TUISession.run(context: context, screen: { _ in screen })
        XCTAssertEqual(code, ExitCodes.success)
        XCTAssertNil(screen.stalled, "the script stopped at step \(screen.stalled ?? -1):\n\(screen.screen)")

        let hits = try XCTUnwrap(screen.frames.last { $0.contains("2 hits in 2 episodes") })
        XCTAssertTrue(hits.contains("Loop Show — Weather Talk (e2, "), hits)
        XCTAssertTrue(hits.contains("0:00:20  Climate change, again."), hits)
        XCTAssertTrue(hits.contains("0:00:42  We talk about climate change & roses."), hits)
        XCTAssertLessThan(
            try XCTUnwrap(hits.range(of: "Weather Talk")).lowerBound, try XCTUnwrap(hits.range(of: "Garden Talk")).lowerBound, "newest first")

        let started = driver.started.withLock { $0 }
        XCTAssertEqual(started.count, 2, "mpv played twice")
        // mpv lands on an audio frame next to the second asked, either side of it (41.999934 for 42 was seen).
        XCTAssertTrue(started.count == 2 && (19.5..<23).contains(started[0]), "the hit's second: \(started)")
        XCTAssertTrue(started.count == 2 && (41.5..<45).contains(started[1]), "the hit's cue in the whole transcript: \(started)")
        // The position is followed as `o` follows it: stored when mpv quit, past where it started.
        let weather = try await context.store.library.episode(id: 2).episode.position
        XCTAssertTrue((20...30).contains(weather ?? -1), "\(String(describing: weather))")
        let garden = try await context.store.library.episode(id: 1).episode.position
        XCTAssertTrue((42...52).contains(garden ?? -1), "\(String(describing: garden))")
        // Fetched transcripts are kept: the next `t` reads the store.
        let info = try await context.store.library.transcriptInfo(episodeId: 3)
        XCTAssertEqual(info?.cached, true)
    }

    /// `i` on an episode not downloaded: its chapters come from the feed's link once the pane is open
    /// (the table of contents, cleaned); a link that fails says why, in the pane.
    func testTheDetailOfAnEpisodeNotDownloadedListsTheChaptersItsFeedLinks() async throws {
        let context = try context()
        let screen = TestScreen(
            width: 100, height: 24,
            script: [
                .type("2", after: "2 done"),
                .type("i", after: "Late Talk"),
                .type("q", after: "Late news"),
                // Weather Talk is downloaded, but has no chapters beside its file: the link is asked, and is gone.
                .type("j"),
                .type("i"),
                .type("q", after: "cannot be read"),
                .type("q"),
            ], patience: 30)
        let code = try await TUISession.run(context: context, screen: { _ in screen })
        XCTAssertEqual(code, ExitCodes.success)
        XCTAssertNil(screen.stalled, "the script stopped at step \(screen.stalled ?? -1):\n\(screen.screen)")
        let late = try XCTUnwrap(screen.frames.last { $0.contains("Late news") })
        XCTAssertTrue(late.contains("1. 0:00:00 Intro"), late)
        XCTAssertTrue(late.contains("2. 0:01:15 Late news"), "toc false left out, the escape cleaned: \(late)")
        XCTAssertFalse(late.contains(". 0:00:30 "), "toc false: not listed: \(late)")
        let gone = try XCTUnwrap(screen.frames.last { $0.contains("cannot be read") })
        XCTAssertTrue(gone.contains("the chapters of e2"), gone)
    }
}
