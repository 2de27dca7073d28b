import Foundation
import PodqTestSupport
import XCTest

/// Tests of the real `podq` TUI in a real terminal (tmux) against the in-process server: the screen
/// is read back with `capture-pane` and the server's log says what really went over the wire.
class TerminalTestCase: CLITestCase {
    var tmux: Tmux?

    override func setUp() async throws {
        try await super.setUp()
        XCTAssertTrue(Tmux.isAvailable, "tmux is needed for terminal tests: apt-get install tmux (.ci/run does)")
    }

    override func tearDown() async throws {
        tmux?.stop()
        // A failure in CI leaves no home to look at: the end of podq's log and the server's requests go
        // to the test's output (a TUI that waited on something says what in its log).
        if (testRun?.failureCount ?? 0) > 0 {
            let log = (try? String(contentsOfFile: cli.home + "/podq.log", encoding: .utf8)) ?? "(no podq.log)"
            print("--- podq.log (last 4000 characters) of \(name):\n" + String(log.suffix(4000)))
            print("--- requests: " + server.log.requests.suffix(20).map { "\($0.method) \($0.uri)" }.joined(separator: ", "))
        }
        try await super.tearDown()
    }

    /// Queues `count` slow files (`size` bytes at `rate` bytes/s each) and returns their URLs.
    /// - Parameter digest: served with its `Repr-Digest`, what lets podq split a file (docs/FILES.md).
    func queue(_ count: Int, size: Int64, rate: Int, prefix: String = "ep", digest: Bool = false) async throws -> [URL] {
        let urls = (1...count).map {
            server.dataURL(size: size, seed: UInt64($0), name: "\(prefix)\($0).mp3", ["rate": String(rate)].merging(digest ? ["digest": "repr"] : [:]) { $1 })
        }
        let added = try await cli.run(["queue", "add", "--download-dir", dir.file("out")] + urls.map(\.absoluteString))
        XCTAssertEqual(added.exit.code, 0, added.err)
        return urls
    }

    /// Opens the TUI in a fresh tmux of `width` × `height`.
    @discardableResult
    func openTUI(_ arguments: [String] = [], width: Int = 130, height: Int = 20) throws -> Tmux {
        tmux?.stop()
        // Every download here comes from the one test server: lift the per-host cap (2) unless a test sets it.
        let cap = arguments.contains("--per-host") ? [] : ["--per-host", "8"]
        let command = ([ChildProcess.podqExecutable, "tui", "--home", cli.home] + cap + arguments).map { "'\($0)'" }.joined(separator: " ")
        let terminal = try Tmux(command: command, width: width, height: height)
        tmux = terminal
        return terminal
    }

    func line(_ screen: String, containing text: String) -> String {
        screen.split(separator: "\n").first { $0.contains(text) }.map(String.init) ?? ""
    }

    func percent(_ screen: String, _ name: String) -> Int? {
        let row = line(screen, containing: name)
        guard let range = row.range(of: #"\d+%"#, options: .regularExpression) else { return nil }
        return Int(row[range].dropLast())
    }

    func expectedHash(_ seed: Int, _ size: Int64) -> String { PatternSource(seed: UInt64(seed), length: size).sha256 }

}
