import Foundation
import PodqTestSupport
import XCTest

/// docs/FILES.md says "nothing else": every path podq leaves in its home after a day of use (subscribe,
/// refresh, download, import an OPML by URL, cleanup, play, sync, a second process waiting for the
/// lock) is one its table names for the home or the config folder.
final class FilesDocTests: CLITestCase {
    /// The names FILES.md's table gives for the home and the config folder, as patterns (`<pid>` is
    /// any name part), and the download folder's default place in the home.
    private func documentedNames() throws -> [NSRegularExpression] {
        let files = try String(contentsOf: Self.repo.appendingPathComponent("docs/FILES.md"), encoding: .utf8)
        var names = ["downloads"]
        for line in files.split(separator: "\n") where line.hasPrefix("| home |") || line.hasPrefix("| config folder |") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count > 1 else { continue }
            var rest = Substring(cells[1])
            while let open = rest.firstIndex(of: "`"), let close = rest[rest.index(after: open)...].firstIndex(of: "`") {
                names.append(String(rest[rest.index(after: open)..<close]))
                rest = rest[rest.index(after: close)...]
            }
        }
        return try names.map { name in
            let escaped = NSRegularExpression.escapedPattern(for: name)
            let pattern = escaped.replacingOccurrences(of: #"<[^>]+>"#, with: "[^/]+", options: .regularExpression)
            return try NSRegularExpression(pattern: "^" + pattern + "$")
        }
    }

    private static var repo: URL { Repository.root }

    private func feed(_ title: String) -> [UInt8] {
        let items = (1...3).map { i in
            "<item><title>Part \(i)</title><guid>g\(i)</guid><pubDate>0\(i) Sep 2025 10:00:00 GMT</pubDate>"
                + "<enclosure url=\"/data/e\(i).mp3?size=3000&amp;seed=\(i)\" type=\"audio/mpeg\" length=\"3000\"/></item>"
        }
        return Array(#"<?xml version="1.0"?><rss version="2.0"><channel><title>\#(title)</title>\#(items.joined())</channel></rss>"#.utf8)
    }

    func testEveryPathPodqLeavesInItsHomeIsInFILES() async throws {
        try FileManager.default.createDirectory(atPath: cli.home, withIntermediateDirectories: true)
        try "keep-episodes = 1\nplayer = true\nplaylist = true\n".write(toFile: cli.home + "/config", atomically: true, encoding: .utf8)
        server.serve(feed("Show"), as: "show.xml")
        server.serve(feed("Listed"), as: "listed.xml")
        let opml =
            #"<?xml version="1.0"?><opml version="2.0"><body><outline text="Listed" type="rss" xmlUrl="\#(server.url("/static/listed.xml").absoluteString)"/></body></opml>"#
        server.serve(Array(opml.utf8), as: "subs.opml", type: "text/x-opml")
        let commands: [[String]] = [
            ["add", server.url("/static/show.xml").absoluteString],
            ["import", server.url("/static/subs.opml").absoluteString],
            ["refresh"],
            ["queue", "add", "e1", "e2"],
            ["download"],
            ["play", "d1"],
            ["mark-played", "e1", "e2"],
            ["cleanup"],
            ["set", "p1", "keep=2"],
            ["sync"],
            ["queue", "--json"],
        ]
        for command in commands {
            let (exit, out, err) = try await cli.run(command)
            // `sync` without an account is a usage error; everything else works.
            XCTAssertTrue(exit.code == 0 || command == ["sync"], "\(command): \(String(describing: exit.code)) " + out + err)
        }
        let documented = try documentedNames()
        let found = try FileManager.default.contentsOfDirectory(atPath: cli.home)
        XCTAssertTrue(found.contains("queue.sqlite") && found.contains("podq.log"), "\(found)")
        for name in found {
            let range = NSRange(name.startIndex..., in: name)
            XCTAssertTrue(
                documented.contains { $0.firstMatch(in: name, range: range) != nil },
                "podq left \(name) in its home, and docs/FILES.md's table does not name it")
        }
    }
}
