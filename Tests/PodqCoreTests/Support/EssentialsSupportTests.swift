import Dispatch
import Foundation
import PodqBase
import PodqServer
import PodqTestSupport
import XCTest

/// The small parts of Foundation podq has of its own: a file opened by path, a recursive lock, a
/// thread, local time as text, an error as a sentence.
final class EssentialsSupportTests: XCTestCase {
    func testPlainFileReadsSeeksAndWritesLikeFileHandle() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.file("f")
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let out = try XCTUnwrap(PlainFile(forWritingAtPath: path))
        try out.write(contentsOf: bytes)
        out.close()
        let file = try XCTUnwrap(PlainFile(forReadingAtPath: path))
        XCTAssertEqual(Array(try file.read(upToCount: 10)), Array(bytes.prefix(10)))
        var rest = Data()
        while case let chunk = try file.read(upToCount: 1 << 16), !chunk.isEmpty { rest += chunk }
        XCTAssertEqual(Array(rest), Array(bytes.dropFirst(10)))
        try file.seek(toOffset: 5)
        let handle = try XCTUnwrap(FileHandle(forReadingAtPath: path))
        try handle.seek(toOffset: 5)
        XCTAssertEqual(try file.read(upToCount: 100), try handle.read(upToCount: 100))
        XCTAssertNil(PlainFile(forReadingAtPath: folder.path + "/missing"))
    }

    func testRecursiveLockIsTakenAgainByItsHolderAndExcludesOthers() {
        let lock = RecursiveLock()
        let counter = Counter()
        let group = DispatchGroup()
        for _ in 0..<4 {
            DispatchQueue.global().async(group: group) {
                for _ in 0..<10_000 { lock.withLock { lock.withLock { counter.value += 1 } } }
            }
        }
        group.wait()
        XCTAssertEqual(counter.value, 40_000)
    }

    func testDetachedThreadRunsItsWork() {
        let ran = expectation(description: "ran")
        DetachedThread.start { ran.fulfill() }
        wait(for: [ran], timeout: 10)
    }

    func testLocalTimeAgreesWithDateFormatter() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        var random = SeededGenerator(seed: 462)
        for _ in 0..<500 {
            let date = Date(timeIntervalSince1970: Double(Int.random(in: 0...4_000_000_000, using: &random)))
            XCTAssertEqual(LocalTime.text(date, format: "%Y-%m-%d %H:%M"), formatter.string(from: date))
        }
    }

    func testErrorsSayWhatTheSystemSaidAndOfWhichFile() {
        do {
            _ = try Data(contentsOf: URL(fileURLWithPath: "/nonexistent-podq/x"))
            XCTFail("read a file that is not there")
        } catch {
            XCTAssertEqual(ErrorText.describe(error), "No such file or directory: /nonexistent-podq/x")
        }
        struct Told: LocalizedError { var errorDescription: String? { "told" } }
        XCTAssertEqual(ErrorText.describe(Told()), "told")
        XCTAssertEqual(ErrorText.describe(POSIXError(.EACCES)), "Permission denied")
    }
}

/// @unchecked: `value` is read and written only while holding the test's `RecursiveLock` (and read
/// after `group.wait()`): the lock under test is what makes it safe, which is what the test checks.
private final class Counter: @unchecked Sendable {
    var value = 0
}
