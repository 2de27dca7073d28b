import Foundation
import PodqTestAssertions
import PodqTestSupport
import XCTest

/// The TUI's `a` with words, in tmux: a new user with no URL in hand finds a show in the directories,
/// reads about it, subscribes and downloads an episode without leaving the TUI.
final class TUISearchTerminalTests: TerminalTestCase {
    var directories: DirectoryTestServer!

    override func tearDown() async throws {
        await directories?.stop()
        try await super.tearDown()
    }

    private func serveShow() {
        server.serve(
            Array(
                """
                <?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>The History of Rome</title>
                <item><title>Romulus and Remus</title><guid>r1</guid><pubDate>Sun, 01 Jul 2007 10:00:00 GMT</pubDate>
                <enclosure url="/data/romulus.mp3?size=200000&amp;seed=1" type="audio/mpeg" length="200000"/></item>
                <item><title>The Kings</title><guid>r2</guid><pubDate>Sun, 08 Jul 2007 10:00:00 GMT</pubDate>
                <enclosure url="/data/kings.mp3?size=200000&amp;seed=2" type="audio/mpeg" length="200000"/></item>
                </channel></rss>
                """.utf8), as: "rome.xml")
    }

    private func start(_ catalogue: [DirectoryTestServer.Show], extra: String = "") async throws {
        directories = try await DirectoryTestServer.start(catalogue: catalogue)
        try FileManager.default.createDirectory(atPath: cli.home, withIntermediateDirectories: true)
        try (directories.configLines + "download-folder = \(dir.file("out"))\n" + extra).write(
            toFile: cli.home + "/config", atomically: true, encoding: .utf8)
    }

    func testANewUserFindsAShowSubscribesAndDownloadsFromTheTUIAlone() async throws {
        serveShow()
        try await start([
            .init(
                "The History of Rome", author: "Mike Duncan", feed: server.url("/static/rome.xml").absoluteString, episodes: 2,
                description: "<p>The rise and fall of <b>the Roman Empire</b>, one emperor at a time.</p>"),
            .init("Rome Tonight", author: "Radio Roma", feed: "https://radio.example.invalid/rome.xml", episodes: 40),
        ])
        let tui = try openTUI(width: 120, height: 20)
        let first = await tui.waitFor { $0.contains("a add") }
        XCTAssertTrue(first.ok, "the first screen offers `a`:\n\(first.screen)")
        tui.send("a")
        tui.send("history of rome")
        let typed = await tui.waitFor { $0.contains("Add a podcast: history of rome") }
        XCTAssertTrue(typed.ok, typed.screen)
        tui.send("Enter")
        let listed = await tui.waitFor { $0.contains("Find a podcast: “history of rome”") && $0.contains("The History of Rome — by Mike Duncan") }
        XCTAssertTrue(listed.ok, listed.screen)
        XCTAssertTrue(line(listed.screen, containing: "The History of Rome —").contains("2 episodes"), listed.screen)
        XCTAssertFalse(listed.screen.contains("Rome Tonight"), "only shows with every word:\n\(listed.screen)")
        tui.send("i")
        let about = await tui.waitFor { $0.contains("The rise and fall of the Roman Empire, one emperor at a time.") }
        XCTAssertTrue(about.ok, "i shows the description as plain text:\n\(about.screen)")
        tui.send("Escape")
        let back = await tui.waitFor { $0.contains("The History of Rome — by Mike Duncan") }
        XCTAssertTrue(back.ok, back.screen)
        tui.send("Enter")
        let subscribed = await tui.waitFor { $0.contains("Episodes: The History of Rome") && $0.contains("The Kings") && $0.contains("Romulus and Remus") }
        XCTAssertTrue(subscribed.ok, "Enter subscribes and shows the episodes:\n\(subscribed.screen)")
        tui.send("Enter")  // queues the selected (newest) episode
        tui.send("1")
        let done = await tui.waitFor(timeout: 30) { $0.contains("1 done") }
        XCTAssertTrue(done.ok, done.screen)
        // Found again: not subscribed twice, its episodes shown.
        tui.send("a")
        tui.send("rome")
        tui.send("Enter")
        let again = await tui.waitFor { $0.contains("The History of Rome — by Mike Duncan") }
        XCTAssertTrue(again.ok, again.screen)
        tui.send("Enter")
        let known = await tui.waitFor { $0.contains("already subscribed to The History of Rome") && $0.contains("Episodes: The History of Rome") }
        XCTAssertTrue(known.ok, known.screen)
        tui.send("q")
        await expect(tui) { $0.contains("[exit ") }
        let files = try FileManager.default.subpathsOfDirectory(atPath: dir.file("out"))
        XCTAssertTrue(files.contains { $0.hasSuffix("The Kings.mp3") }, "\(files)")
        let feeds = try await cli.run(["feeds", "--json"])
        XCTAssertTrue(feeds.out.contains(server.url("/static/rome.xml").absoluteString), feeds.out)
    }

    func testLoadingEscapeAndEveryDirectoryDown() async throws {
        try await start([.init("Slow Show", feed: "https://slow.example.org/feed")], extra: "fetch-timeout = 3\n")
        directories.set(.itunes, .slow(seconds: 60))
        directories.set(.gpodder, .slow(seconds: 60))
        directories.set(.podcastindex, .slow(seconds: 60))
        let tui = try openTUI(width: 110, height: 16)
        await expect(tui) { $0.contains("a add") }
        tui.send("a")
        tui.send("slow show")
        tui.send("Enter")
        let loading = await tui.waitFor { $0.contains("Searching the podcast directories for “slow show”…") }
        XCTAssertTrue(loading.ok, loading.screen)
        let down = await tui.waitFor(timeout: 15) { $0.contains("No directory could be searched") && $0.contains("did not answer within 3 s") }
        XCTAssertTrue(down.ok, "every directory slow: said after the deadline:\n\(down.screen)")
        tui.send("Escape")
        let gone = await tui.waitFor { !$0.contains("Find a podcast") }
        XCTAssertTrue(gone.ok, "Esc goes back:\n\(gone.screen)")
        // A URL at `a` is still a URL: no search.
        tui.send("a")
        tui.send(server.url("/static/missing.xml").absoluteString)
        tui.send("Enter")
        let added = await tui.waitFor { $0.contains("missing.xml") && !$0.contains("Add a podcast:") }
        XCTAssertTrue(added.ok, added.screen)
        XCTAssertFalse(added.screen.contains("Find a podcast"), added.screen)
        tui.send("q")
        await expect(tui) { $0.contains("[exit ") }
    }
}
