import PodqHTTP
import PodqTestSupport
import XCTest

@testable import PodqCore

final class PartialFileWriterTests: XCTestCase {
    /// The write seam: `/dev/full` fails every write with ENOSPC, as a full disk does.
    func testAFullDiskIsReportedAsSuch() throws {
        let fd = open("/dev/full", O_WRONLY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let writer = PartialFileWriter(stream: DescriptorOutputStream(descriptor: fd), path: "/dev/full")
        let bytes = [UInt8](repeating: 7, count: 64 * 1024)
        XCTAssertThrowsError(try bytes.withUnsafeBytes { try writer.write($0) }) { error in
            XCTAssertEqual(error as? DownloadError, .diskFull(path: "/dev/full"))
            XCTAssertTrue((error as? DownloadError)?.isRetryable ?? false)
        }
    }

    func testWritesAppendsAndCommits() async throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        _ = FileManager.default.createFile(atPath: dir.file("a.part"), contents: Data([1, 2]))
        let folder = try DownloadFolder(path: dir.path)
        let file = try XCTUnwrap(folder.claim("a"))
        try file.truncate(to: try file.size())
        let writer = PartialFileWriter(file: file)
        try [UInt8]([3, 4]).withUnsafeBytes { try writer.write($0) }
        writer.close()
        let committed = try await file.commit(length: 4, names: ["a"]) { _, _ in }
        XCTAssertEqual(committed.path, dir.file("a"))
        XCTAssertEqual(FileManager.default.contents(atPath: dir.file("a")), Data([1, 2, 3, 4]))
        XCTAssertEqual(dir.contents, ["a"])
    }

    func testAFolderThatCannotBeCreatedIsAFileSystemError() {
        XCTAssertThrowsError(try DownloadFolder(path: "/proc/podq")) {
            guard case .fileSystem = $0 as? DownloadError else { return XCTFail("\($0)") }
        }
    }
}
