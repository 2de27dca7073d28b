import PodqTestSupport
import XCTest

/// `podq download` on a real terminal (tmux): live progress lines, then a clean final screen.
final class DownloadCommandTerminalTests: XCTestCase {
    func testLiveLinesOnATerminal() async throws {
        XCTAssertTrue(Tmux.isAvailable, "tmux is needed for terminal tests: apt-get install tmux (.ci/run does)")
        let server = try await TestServer.start()
        let dir = TemporaryDirectory("podq-tty")
        defer { dir.remove() }
        let urls = (1...2).map { server.dataURL(size: 1_500_000, seed: UInt64($0), name: "live\($0).mp3", ["rate": "500000"]).absoluteString }
        let tmux = try Tmux(
            command:
                "\(ChildProcess.podqExecutable) download --home \(dir.file("home")) --download-dir \(dir.file("out")) \(urls.map { "'\($0)'" }.joined(separator: " "))",
            width: 100, height: 20)
        defer { tmux.stop() }

        let live = await tmux.waitFor { $0.contains("downloading") && $0.contains("█") && $0.contains("B/s") && $0.contains("%") }
        XCTAssertTrue(live.ok, "live lines with a bar and a speed:\n\(live.screen)")
        let done = await tmux.waitFor(timeout: 30) { $0.contains("[exit ") }
        XCTAssertTrue(done.screen.contains("[exit 0]"), done.screen)
        XCTAssertTrue(done.screen.contains("2 completed, 0 failed"), done.screen)
        XCTAssertFalse(done.screen.contains("downloading"), "the live lines are erased at the end:\n\(done.screen)")
        for i in 1...2 {
            XCTAssertEqual(FileHash.sha256(path: dir.file("out/live\(i).mp3")), PatternSource(seed: UInt64(i), length: 1_500_000).sha256)
        }
        await server.stop()
    }
}
