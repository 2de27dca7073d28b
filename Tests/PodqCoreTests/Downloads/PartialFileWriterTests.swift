@testable import PodqCore
import PodqTestSupport
import XCTest

final class PartialFileWriterTests: XCTestCase {
    /// The write seam: `/dev/full` fails every write with ENOSPC, as a full disk does.
    func testAFullDiskIsReportedAsSuch() throws {
        let writer = try PartialFileWriter(partPath: "/dev/full", truncate: false)
        let bytes = [UInt8](repeating: 7, count: 64 * 1024)
        XCTAssertThrowsError(try bytes.withUnsafeBytes { try writer.write($0) }) { error in
            XCTAssertEqual(error as? DownloadError, .diskFull(path: "/dev/full"))
            XCTAssertTrue((error as? DownloadError)?.isRetryable ?? false)
        }
    }

    func testWritesAppendsAndCommits() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        _ = FileManager.default.createFile(atPath: dir.file("a.part"), contents: Data([1, 2]))
        let writer = try PartialFileWriter(partPath: dir.file("a.part"), truncate: false)
        try [UInt8]([3, 4]).withUnsafeBytes { try writer.write($0) }
        try writer.commit(to: dir.file("a"))
        XCTAssertEqual(FileManager.default.contents(atPath: dir.file("a")), Data([1, 2, 3, 4]))
        XCTAssertEqual(dir.contents, ["a"])
    }

    func testAFolderThatCannotBeCreatedIsAFileSystemError() {
        XCTAssertThrowsError(try PartialFileWriter(partPath: "/proc/podq/x.part", truncate: true)) {
            guard case .fileSystem = $0 as? DownloadError else { return XCTFail("\($0)") }
        }
    }
}
