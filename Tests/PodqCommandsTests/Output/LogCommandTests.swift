import Foundation
import PodqTestSupport
import XCTest

/// The log file in the home and `--verbose`, through the real binary.
final class LogCommandTests: CLITestCase {
    private var logPath: String { dir.file("home/podq.log") }

    private func log() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    private func run(_ arguments: [String]) async throws -> (ChildProcess, Int32?) {
        let child = try cli.start(arguments)
        return (child, await child.finish(timeout: 60).code)
    }

    func testAFailedDownloadIsLoggedWithItsCauseAndEveryURLItWentThrough() async throws {
        let broken = server.url("/redirect/2?to=/status/404").absoluteString
        let good = server.dataURL(size: 5000, name: "ok.mp3").absoluteString
        let (child, childCode) = try await run(["download", "--download-dir", dir.file("out"), broken, good])
        XCTAssertEqual(childCode, 1, child.standardError)
        let text = log()
        let failure = try XCTUnwrap(text.split(separator: "\n").first { $0.contains("ERROR") && $0.contains("download failed") }, text)
        XCTAssertTrue(failure.contains("cause=\"httpStatus(code: 404"), String(failure))
        XCTAssertTrue(failure.contains("reason=\"The server has no file at"), String(failure))
        let chain = try XCTUnwrap(failure.range(of: "chain=\"").map { failure[$0.upperBound...].prefix { $0 != "\"" } })
        let hops = chain.components(separatedBy: " -> ")
        XCTAssertEqual(hops.count, 3, String(chain))
        XCTAssertTrue(hops[0].hasSuffix("/redirect/2?to=/status/404"))
        XCTAssertTrue(hops[2].hasSuffix("/status/404"))
        XCTAssertTrue(text.contains("INFO [") && text.contains("download completed"), text)
        XCTAssertFalse(text.contains(" DEBUG "), "debug lines only with --verbose")
        XCTAssertFalse(child.standardError.contains("download failed"), "without --verbose the log stays in the file")
    }

    func testVerboseShowsEachRequestAndResponseOnStandardError() async throws {
        let url = server.dataURL(size: 5000, name: "v.mp3").absoluteString
        let (child, childCode) = try await run(["download", "--verbose", "--download-dir", dir.file("out"), url])
        XCTAssertEqual(childCode, 0, child.standardError)
        let err = child.standardError
        XCTAssertTrue(err.contains(" DEBUG ") && err.contains(" request ") && err.contains("url=\"\(url)\""), err)
        XCTAssertTrue(err.contains(" response ") && err.contains("status=200") && err.contains("content-length=5000"), err)
        XCTAssertTrue(log().contains(" response "), "the file gets the debug lines too")
        XCTAssertTrue(child.standardOutput.contains("completed"), "the normal output is unchanged")
    }

    func testAFeedThatCannotBeReadIsLoggedWithItsRedirects() async throws {
        let (child, childCode) = try await run(["add", server.url("/loop/a").absoluteString])
        XCTAssertNotEqual(childCode, 0, child.standardError)
        let text = log()
        let line = try XCTUnwrap(text.split(separator: "\n").first { $0.contains("subscribe failed") }, text)
        XCTAssertTrue(line.contains("/loop/a -> "), String(line))
        XCTAssertTrue(line.contains("/loop/b -> "), String(line))
        XCTAssertTrue(line.contains("cause=\"fetch(PodqCore.DownloadError.redirectLoop") || line.contains("redirectLoop"), String(line))
        XCTAssertTrue(text.contains("command failed"), "the command's own error is logged too: \(text)")
    }

    func testLogSizeZeroWritesNoLogAndABadSizeIsRefused() async throws {
        try FileManager.default.createDirectory(atPath: dir.file("home"), withIntermediateDirectories: true)
        try "log-size = 0\n".write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        let (quiet, quietCode) = try await run(["download", "--download-dir", dir.file("out"), server.dataURL(size: 100, name: "q.mp3").absoluteString])
        XCTAssertEqual(quietCode, 0, quiet.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: logPath))

        try "log-size = lots\n".write(toFile: dir.file("home/config"), atomically: true, encoding: .utf8)
        let (bad, badCode) = try await run(["queue"])
        XCTAssertEqual(badCode, 4, "a bad config has its own exit code")
        XCTAssertTrue(bad.standardError.contains("config:1: 'log-size' must be a whole number from 0 to 100"), bad.standardError)
    }
}
