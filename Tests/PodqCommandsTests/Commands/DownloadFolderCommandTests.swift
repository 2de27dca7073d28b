import PodqTestSupport
import XCTest

/// The download folder as an attacker or a careless user meets it: planted symlinks, a podcast folder
/// swapped for one, two podqs with two homes on one folder, a file that appears at a queued
/// destination, two URLs whose names collide once an extension is added. The real binary each time.
final class DownloadFolderCommandTests: CLITestCase {
    private var out: String { dir.file("out") }

    private func queueJSON(home: String? = nil) async throws -> [[String: Any]] {
        let invocation = home.map { PodqInvocation(home: $0, directory: dir.path) } ?? cli!
        let (_, stdout, err) = try await invocation.run(["queue", "--json"])
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [[String: Any]], err)
    }

    private func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    private func files(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    func testASymlinkPlantedAtThePartialIsRefusedAndItsTargetIsUntouched() async throws {
        let victim = dir.file("outside/precious.txt")
        try write("my notes\n", to: victim)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: out + "/ep.mp3.part", withDestinationPath: victim)
        // A dangling one must not create its target either.
        try FileManager.default.createSymbolicLink(atPath: out + "/new.mp3.part", withDestinationPath: dir.file("outside/created.txt"))

        let (exit, stdout, err) = try await cli.run([
            "download", "--download-dir", out,
            server.dataURL(size: 200_000, seed: 1, name: "ep.mp3").absoluteString,
            server.dataURL(size: 200_000, seed: 2, name: "new.mp3").absoluteString,
        ])
        XCTAssertEqual(exit.code, 1, stdout + err)
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "my notes\n", "the link's target is untouched")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("outside/created.txt")), "nothing is created outside")
        XCTAssertEqual(files(in: dir.file("outside")), ["precious.txt"])
        XCTAssertTrue(stdout.contains("\(out)/ep.mp3.part"), "the error names the link: \(stdout)")
        XCTAssertTrue(stdout.contains("symbolic link"), stdout)
        let rows = try await queueJSON()
        XCTAssertEqual(rows.map { $0["state"] as? String }, ["failed", "failed"])
    }

    func testAPodcastFolderSwappedForASymlinkAfterQueueingIsRefused() async throws {
        let feed = """
            <?xml version="1.0"?><rss version="2.0"><channel><title>Show</title>
            <item><title>One</title><guid>g1</guid><pubDate>Sat, 14 Nov 2026 10:00:00 GMT</pubDate>
            <enclosure url="/data/one.mp3?size=50000&amp;seed=4" type="audio/mpeg" length="50000"/></item>
            </channel></rss>
            """
        server.serve(Array(feed.utf8), as: "show.xml")
        var (exit, stdout, err) = try await cli.run(["add", server.url("/static/show.xml").absoluteString])
        XCTAssertEqual(exit.code, 0, err)
        (exit, stdout, err) = try await cli.run(["queue", "add", "--download-dir", out, "--latest", "1", "Show"])
        XCTAssertEqual(exit.code, 0, err)
        XCTAssertTrue(stdout.contains("\(out)/Show/2026-11-14 One.mp3"), stdout)

        // After queueing, the podcast's folder becomes a link to somewhere else.
        let elsewhere = dir.file("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: out + "/Show", withDestinationPath: elsewhere)

        (exit, stdout, err) = try await cli.run(["download", "--download-dir", out])
        XCTAssertEqual(exit.code, 1, stdout + err)
        XCTAssertEqual(files(in: elsewhere), [], "nothing was written through the link")
        XCTAssertTrue(stdout.contains("\(out)/Show"), "the error names the folder: \(stdout)")
        XCTAssertTrue(stdout.contains("symbolic link"), stdout)
    }

    /// Two podqs with two homes on one folder, the same URL at the same time: each claims its own
    /// partial, and every file that ends up completed holds exactly the served bytes.
    func testTwoProcessesWithTwoHomesOnOneFolderNeverMixTheirBytes() async throws {
        let size: Int64 = 600_000
        let url = server.dataURL(size: size, seed: 9, name: "ep.mp3", ["rate": "400000"]).absoluteString
        let a = PodqInvocation(home: dir.file("home-a"), directory: dir.path)
        let b = PodqInvocation(home: dir.file("home-b"), directory: dir.path)
        let first = try a.start(["download", "--download-dir", out, url])
        let second = try b.start(["download", "--download-dir", out, url])
        let (exitA, exitB) = (await first.finish(), await second.finish())
        XCTAssertEqual(exitA.code, 0, first.standardOutput + first.standardError)
        XCTAssertEqual(exitB.code, 0, second.standardOutput + second.standardError)
        let expected = PatternSource(seed: 9, length: size).sha256
        XCTAssertEqual(files(in: out), ["ep (2).mp3", "ep.mp3"], "two files, no partial left")
        for name in files(in: out) {
            XCTAssertEqual(FileHash.sha256(path: out + "/" + name), expected, name)
        }
        let pathA = try await queueJSON(home: dir.file("home-a")).first?["path"] as? String
        let pathB = try await queueJSON(home: dir.file("home-b")).first?["path"] as? String
        XCTAssertNotEqual(pathA, pathB, "each home's row names its own file")
        XCTAssertEqual(Set([pathA, pathB].compactMap { $0 }), Set(files(in: out).map { out + "/" + $0 }))
    }

    /// A file that appears where a queued download will go is somebody else's: it is neither adopted
    /// as the download nor replaced; the download runs into the next free name.
    func testAFileThatAppearsAtAQueuedDestinationIsNeitherAdoptedNorReplaced() async throws {
        let url = server.dataURL(size: 80_000, seed: 5, name: "ep.mp3").absoluteString
        var (exit, stdout, err) = try await cli.run(["queue", "add", "--download-dir", out, url])
        XCTAssertEqual(exit.code, 0, err)
        XCTAssertTrue(stdout.contains("\(out)/ep.mp3"), stdout)
        try write("not an episode\n", to: out + "/ep.mp3")

        (exit, stdout, err) = try await cli.run(["download"])
        XCTAssertEqual(exit.code, 0, stdout + err)
        XCTAssertEqual(server.log.requests.count, 1, "the download ran")
        XCTAssertEqual(try String(contentsOfFile: out + "/ep.mp3", encoding: .utf8), "not an episode\n", "the other file is kept as it was")
        XCTAssertEqual(FileHash.sha256(path: out + "/ep (2).mp3"), PatternSource(seed: 5, length: 80_000).sha256)
        let rows = try await queueJSON()
        XCTAssertEqual(rows.first?["state"] as? String, "completed")
        XCTAssertEqual(rows.first?["path"] as? String, out + "/ep (2).mp3")
    }

    /// `…/episode` served as audio/mpeg becomes `episode.mp3`; the queued `…/episode.mp3` must then
    /// take another name, not rename over it.
    func testAnExtensionAddedFromTheContentTypeNeverReplacesAnotherDownload() async throws {
        let bare = server.dataURL(size: 70_000, seed: 11, name: "episode").absoluteString
        let named = server.dataURL(size: 90_000, seed: 12, name: "episode.mp3").absoluteString
        let (exit, stdout, err) = try await cli.run(["download", "--jobs", "1", "--download-dir", out, bare, named])
        XCTAssertEqual(exit.code, 0, stdout + err)
        let rows = try await queueJSON()
        XCTAssertEqual(rows.map { $0["state"] as? String }, ["completed", "completed"])
        let paths = rows.compactMap { $0["path"] as? String }
        XCTAssertEqual(Set(paths).count, 2, "two rows, two files: \(paths)")
        XCTAssertEqual(FileHash.sha256(path: paths[0]), PatternSource(seed: 11, length: 70_000).sha256)
        XCTAssertEqual(FileHash.sha256(path: paths[1]), PatternSource(seed: 12, length: 90_000).sha256)
        XCTAssertEqual(files(in: out).count, 2, "\(files(in: out))")
    }
}
