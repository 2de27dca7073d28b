import Foundation
import PodqTestAssertions
import PodqTestSupport
import XCTest

/// podq loads libxml2 with dlopen when it first parses a feed, an OPML file or a web page, not at
/// start: linked, libxml2 brought Debian's ICU and the C++ runtime into every run, 1.1 MB of a
/// download's memory (docs/PERFORMANCE.md, "Where one download's memory goes"). ncursesw (and its
/// libtinfo) the same way when the TUI starts. The feed and TUI tests show that they are found when
/// needed; these show that a run which parses nothing and draws nothing never maps them.
final class LoadedLibrariesTests: CLITestCase {
    /// The files mapped into process `pid` (`/proc/<pid>/maps`, read to its end).
    private func mappedFiles(_ pid: pid_t) throws -> Set<String> {
        let handle = try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/\(pid)/maps"))
        defer { try? handle.close() }
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        return Set(
            text.split(separator: "\n").compactMap { line in line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(5).first.map(String.init) })
    }

    func testADownloadMapsNeitherLibxml2NorICUNorNcurses() async throws {
        // The server sends 1,000 bytes, then nothing for 30 s: the download is running while we look.
        let url = server.dataURL(size: 400_000, name: "held.mp3", ["stall": "1000:30"])
        let child = try cli.start(["download", "--download-dir", dir.file("out"), url.absoluteString])
        await expect(timeout: 30, every: 20) { self.server.log.requests.contains { $0.path.hasPrefix("/data/held.mp3") } }
        let files = try mappedFiles(child.pid)
        kill(child.pid, SIGINT)
        _ = await child.finish(timeout: 30)
        XCTAssertTrue(files.contains { $0.contains("libsqlite3") }, "the maps were read while podq ran: \(files.sorted())")
        XCTAssertFalse(files.contains { $0.contains("libxml2") }, "a download mapped libxml2: \(files.sorted())")
        XCTAssertFalse(files.contains { $0.contains("libicu") }, "a download mapped ICU: \(files.sorted())")
        XCTAssertFalse(files.contains { $0.contains("libncurses") || $0.contains("libtinfo") }, "a download mapped ncurses: \(files.sorted())")
    }

    func testParsingAFeedLoadsLibxml2AndReadsIt() async throws {
        let feed = dir.file("feed.xml")
        try """
        <?xml version="1.0"?><rss version="2.0"><channel><title>Loaded</title>
        <item><title>One</title><guid>1</guid><enclosure url="http://example.com/1.mp3" type="audio/mpeg"/></item>
        </channel></rss>
        """.write(toFile: feed, atomically: true, encoding: .utf8)
        let (exit, out, err) = try await cli.run(["parse", feed])
        XCTAssertEqual(exit.code, 0, err)
        XCTAssertTrue(out.contains("Loaded") && out.contains("One"), out)
    }

    /// Where libxml2 cannot be opened (here a file in its name that is no library, found first on the
    /// loader's path), a feed fails with what is wrong and what to install, not as a broken feed.
    func testAFeedWithoutLibxml2SaysWhatToInstall() async throws {
        let libs = dir.file("libs")
        try FileManager.default.createDirectory(atPath: libs, withIntermediateDirectories: true)
        try "not a library".write(toFile: libs + "/libxml2.so.2", atomically: true, encoding: .utf8)
        let feed = dir.file("feed.xml")
        try #"<rss version="2.0"><channel><title>Loaded</title></channel></rss>"#.write(toFile: feed, atomically: true, encoding: .utf8)
        let (exit, _, err) = try await cli.run(["parse", feed], environment: ["LD_LIBRARY_PATH": libs])
        XCTAssertEqual(exit.code, 2, err)
        XCTAssertTrue(err.contains("libxml2") && err.contains("cannot be loaded") && err.contains("apt install libxml2"), err)
        XCTAssertFalse(err.contains("not valid XML"), err)
    }
}
