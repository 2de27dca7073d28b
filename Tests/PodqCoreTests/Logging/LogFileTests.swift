import Foundation
import PodqTestSupport
import XCTest

@testable import PodqCore

final class LogFileTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUp() { dir = TemporaryDirectory("podq-log") }
    override func tearDown() { dir.remove() }

    private func lines(_ path: String) -> [String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    private func size(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? -1
    }

    func testRotatesAtTheCapAndKeepsOnlyTheNewestFiles() {
        let log = LogFile(path: dir.file("podq.log"), maxBytes: 4096, keep: 3)
        // 1,000 lines of 40 bytes: 40 KB, about ten files' worth; only 4 files may remain.
        for i in 0..<1000 { log.append(String(format: "line %05d ", i) + String(repeating: "x", count: 28)) }
        let current = lines(log.path)
        XCTAssertLessThanOrEqual(size(log.path), 4096)
        for rotated in log.rotatedPaths {
            XCTAssertTrue(FileManager.default.fileExists(atPath: rotated), rotated)
            XCTAssertLessThanOrEqual(size(rotated), 4096)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: log.path + ".4"), "nothing past keep")
        XCTAssertEqual(current.last?.hasPrefix("line 00999"), true, "the newest line is in podq.log")
        // The kept files are the newest lines, in order, with nothing torn.
        let kept = log.rotatedPaths.reversed().flatMap(lines) + current
        let numbers = kept.map { Int($0.dropFirst(5).prefix(5))! }
        XCTAssertEqual(numbers, Array((1000 - kept.count)..<1000))
        XCTAssertTrue(kept.allSatisfy { $0.count == 39 })
        XCTAssertLessThan(kept.count, 450, "old lines were dropped: the log is capped")
    }

    /// Two writers on one file (as two podq processes sharing a home): every line lands exactly once,
    /// whole, and no file passes the cap.
    func testTwoWritersRotatingTogetherLoseAndTearNothing() {
        let path = dir.file("podq.log")
        let writers = [LogFile(path: path, maxBytes: 4096, keep: 100), LogFile(path: path, maxBytes: 4096, keep: 100)]
        DispatchQueue.concurrentPerform(iterations: 2) { w in
            for i in 0..<1500 { writers[w].append("w\(w) \(String(format: "%05d", i)) " + String(repeating: "y", count: 30)) }
        }
        let files = [path] + writers[0].rotatedPaths.filter { FileManager.default.fileExists(atPath: $0) }
        var seen: [String: Int] = [:]
        for file in files {
            XCTAssertLessThanOrEqual(size(file), 4096, file)
            for line in lines(file) { seen[line, default: 0] += 1 }
        }
        XCTAssertEqual(seen.count, 3000)
        XCTAssertTrue(seen.values.allSatisfy { $0 == 1 })
        XCTAssertTrue(seen.keys.allSatisfy { $0.count == 39 })
    }

    func testAnUnwritableLogIsSkippedWithoutFailing() {
        let log = LogFile(path: dir.file("missing-folder/podq.log"))
        log.append("nothing happens")
        XCTAssertFalse(FileManager.default.fileExists(atPath: log.path))
    }
}
