import Foundation
import Logging
import PodqTestSupport
import XCTest

@testable import PodqCore

final class PodqLogHandlerTests: XCTestCase {
    func testALineHasTimeLevelProcessMessageAndSortedMetadata() {
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let line = PodqLogHandler.format(
            level: .error, message: "download failed",
            metadata: ["url": "http://a/x.mp3", "id": "3", "reason": "The server said \"no\""], date: date)
        let parts = line.split(separator: " ", maxSplits: 3).map(String.init)
        XCTAssertTrue(parts[0].contains("T") && parts[0].contains(".250"), parts[0])
        XCTAssertEqual(parts[1], "ERROR")
        XCTAssertEqual(parts[2], "[\(getpid())]")
        XCTAssertEqual(parts[3], #"download failed id=3 reason="The server said \"no\"" url=http://a/x.mp3"#)
    }

    /// A feed's title or a server's message cannot put escape sequences or line breaks into the log.
    func testControlCharactersFromTheNetworkNeverReachTheLog() {
        let line = PodqLogHandler.format(
            level: .info, message: "title \u{1B}]0;pwned\u{07} here\nforged line",
            metadata: ["title": "a\u{1B}[2Jb\r\nc"], date: Date())
        XCTAssertFalse(line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, line)
        XCTAssertFalse(line.contains("\n"))
    }

    func testTheHandlerWritesAtItsLevelAndAbove() throws {
        let dir = TemporaryDirectory("podq-log")
        defer { dir.remove() }
        let file = LogFile(path: dir.file("podq.log"))
        let echoed = LockedLines()
        var logger = Logger(label: "podq") { _ in PodqLogHandler(file: file, level: .info, echo: { echoed.append($0) }) }
        logger.logLevel = .info
        logger[metadataKey: "id"] = "7"
        logger.debug("not written")
        logger.warning("written", metadata: ["url": "http://h/a"])
        let text = try String(contentsOfFile: file.path, encoding: .utf8)
        XCTAssertFalse(text.contains("not written"))
        XCTAssertTrue(text.contains("WARNING"), text)
        XCTAssertTrue(text.contains("written id=7 url=http://h/a"), text)
        XCTAssertEqual(echoed.lines.count, 1)
    }
}

private final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var _lines: [String] = []
    var lines: [String] { lock.withLock { _lines } }
    func append(_ line: String) { lock.withLock { _lines.append(line) } }
}
