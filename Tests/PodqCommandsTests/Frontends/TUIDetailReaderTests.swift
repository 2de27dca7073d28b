import PodqCore
import PodqTestSupport
import XCTest

@testable import PodqCommands
@testable import PodqSession

/// The detail pane's "Via": the hosts of an episode URL's tracking prefixes, read from the URL.
final class TUIDetailReaderTests: XCTestCase {
    func testViaListsEachTrackingPrefixThenTheFilesHost() {
        XCTAssertEqual(
            TUIDetailReader.via("https://dts.podtrac.com/redirect.mp3/chrt.fm/track/ABC/traffic.megaphone.fm/EP1.mp3?updated=1"),
            "dts.podtrac.com → chrt.fm → traffic.megaphone.fm (the file)")
        XCTAssertEqual(TUIDetailReader.via("https://op3.dev/e/https://cdn.example.org/show/ep.mp3"), "op3.dev → cdn.example.org (the file)")
        XCTAssertEqual(TUIDetailReader.via("https://cdn.example.org/show/ep.mp3"), "", "no prefix: nothing to say")
        XCTAssertEqual(TUIDetailReader.via(nil), "")
    }
}

/// What the detail pane shows of integrity and of a podcast's own settings, from a real store.
final class TUIDetailReaderStoreTests: XCTestCase {
    func testADownloadSaysWhatVerifiedItAndAPodcastItsOwnSettings() async throws {
        let dir = TemporaryDirectory("podq-detail")
        defer { dir.remove() }
        let store = try QueueStore(path: dir.file("queue.sqlite"))
        let (podcast, episodes) = try await store.library.addPodcast(
            url: "http://h/f.xml",
            feed: Feed(
                title: "Show",
                episodes: [
                    FeedEpisode(guid: "1", title: "One", enclosures: [Enclosure(url: "http://h/1.mp3")])
                ]), etag: nil, lastModified: nil, autoQueue: false)
        let row = try await store.queue.add([NewDownload(url: "http://h/1.mp3", title: "One", destination: dir.file("1.mp3"), episodeId: episodes[0].id)])[0]
        _ = try await store.queue.modify(id: row.id) { r in
            var done = r
            done.state = .completed
            done.integrity = Integrity(checksum: "xxh3:00ff", verifiedBy: "unverified", problem: "it differed \u{1B}[31mtwice")
            return done
        }
        _ = try await store.library.updatePodcast(id: podcast.id) { p in
            var rules = PodcastSettings()
            rules.keep = 4
            rules.serial = 2
            p.rules = rules
        }
        let reader = TUIDetailReader(reader: QueueSession.Reader(store: store, configAutoQueue: false))
        let download = try await reader.detail(view: .downloads, id: row.id)
        XCTAssertTrue(download.fields.contains { $0.name == "Verified" && $0.value == "UNVERIFIED: it differed twice" }, "\(download.fields)")
        XCTAssertTrue(download.fields.contains { $0.name == "Checksum" && $0.value == "xxh3:00ff" })
        let shown = try await reader.detail(view: .podcasts, id: podcast.id)
        XCTAssertTrue(shown.fields.contains { $0.name == "Auto-queue" && $0.value == "on" }, "serial mode queues by itself: \(shown.fields)")
        XCTAssertTrue(shown.fields.contains { $0.name == "keep" && $0.value == "4" })
        XCTAssertTrue(shown.fields.contains { $0.name == "serial" && $0.value == "2" })
    }

    /// A completed episode's chapters (its sidecar) are listed in the pane, numbered as `podq play
    /// --chapter` counts them; a hidden one (`toc: false`) is not; a title's escape sequence never reaches it.
    func testTheChaptersBesideAFileAreListed() async throws {
        let dir = TemporaryDirectory("podq-detail")
        defer { dir.remove() }
        let store = try QueueStore(path: dir.file("queue.sqlite"))
        let (_, episodes) = try await store.library.addPodcast(
            url: "http://h/f.xml", feed: Feed(title: "Show", episodes: [FeedEpisode(guid: "1", title: "One", enclosures: [Enclosure(url: "http://h/1.mp3")])]),
            etag: nil, lastModified: nil, autoQueue: false)
        try Data(repeating: 1, count: 10).write(to: URL(fileURLWithPath: dir.file("1.mp3")))
        try #"{"chapters":[{"startTime":0,"title":"Intro"},{"startTime":30,"title":"Ad","toc":false},{"startTime":754,"title":"Main \u001b[31mtopic"}]}"#
            .write(toFile: dir.file("1.chapters.json"), atomically: true, encoding: .utf8)
        let row = try await store.queue.add([NewDownload(url: "http://h/1.mp3", title: "One", destination: dir.file("1.mp3"), episodeId: episodes[0].id)])[0]
        _ = try await store.queue.modify(id: row.id) { r in
            var done = r
            done.state = .completed
            return done
        }
        let reader = TUIDetailReader(reader: QueueSession.Reader(store: store, configAutoQueue: false))
        for detail in [try await reader.detail(view: .downloads, id: row.id), try await reader.detail(view: .episodes, id: episodes[0].id)] {
            let lines = detail.lines(width: 60).map(\.text)
            let first = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("Chapters:") }, "\(lines)")
            XCTAssertTrue(lines[first].hasSuffix("1. 0:00:00 Intro"), lines[first])
            XCTAssertTrue(lines[first + 1].hasSuffix("2. 0:12:34 Main topic"), lines[first + 1])
            XCTAssertTrue(lines[first + 1].hasPrefix("   "), "a continuation under Chapters: \(lines[first + 1])")
        }
    }
}
