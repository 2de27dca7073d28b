import PodqTestSupport
import XCTest

/// A real full disk: a 1 MiB tmpfs as the download folder (needs root to mount).
final class DiskFullTests: XCTestCase {
    func testAFullDiskPausesTheQueueKeepsThePartialAndResumeFinishes() async throws {
        guard getuid() == 0 else {
            throw XCTSkip("mounting a small tmpfs needs root; the write seam is tested in PartialFileWriterTests")
        }
        let dir = TemporaryDirectory("podq-full")
        let mountPoint = dir.file("small")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        guard try run("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint) == 0 else {
            throw XCTSkip("this machine does not allow mounting a tmpfs")
        }
        let server = try await TestServer.start()
        defer { _ = try? run("umount", mountPoint); dir.remove() }
        let size: Int64 = 3_000_000
        let url = server.dataURL(size: size, seed: 77, name: "big.mp3")
        let cli = PodqInvocation(home: dir.file("home"), directory: dir.path)

        let first = try cli.start(["download", "--download-dir", mountPoint, url.absoluteString])
        let exit = await first.finish()
        XCTAssertEqual(exit.code, 1, first.standardOutput + first.standardError)
        XCTAssertTrue(first.standardOutput.contains("The disk is full"), first.standardOutput)
        XCTAssertTrue(first.standardOutput.contains("podq queue resume"), first.standardOutput)
        XCTAssertEqual(first.standardError, "", "no library noise on a full disk")
        let kept = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: mountPoint + "/big.mp3.part")[.size] as? Int64)
        XCTAssertGreaterThan(kept, 500_000, "the partial file is kept")

        XCTAssertEqual(try run("mount", "-o", "remount,size=8m", mountPoint), 0)
        let resumed = try await cli.run(["queue", "resume"])
        XCTAssertEqual(resumed.exit.code, 0)
        server.log.reset()
        let (exit2, out2, err2) = try await cli.run(["download"])
        XCTAssertEqual(exit2.code, 0, out2 + err2)
        XCTAssertEqual(server.log.requests.first?.header("Range"), "bytes=\(kept)-", "continued from the kept partial")
        XCTAssertEqual(FileHash.sha256(path: mountPoint + "/big.mp3"), PatternSource(seed: 77, length: size).sha256)
        await server.stop()
    }

    private func run(_ arguments: String...) throws -> Int32? {
        let child = try ChildProcess(executable: arguments[0], arguments: Array(arguments.dropFirst()), directory: "/tmp")
        return child.wait(timeout: 20).code
    }
}
