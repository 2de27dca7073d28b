import Foundation
import PodqTestSupport
import XCTest

/// The files podq writes in its home are its own: a symbolic link or a FIFO in the place of one is
/// refused with an error that names it (exit 5), and nothing is written through it (issue 43, point 3);
/// a FIFO as the config, an OPML file or a feed file is refused at once, never waited on (point 4).
final class HomeFilesTests: CLITestCase {
    private var home: String { dir.file("home") }

    /// A file outside the home that a link points to: it must keep its bytes.
    private func victim() throws -> String {
        let path = dir.file("victim.txt")
        try "precious\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testALinkAtAnyFileOfTheHomeIsRefusedAndNothingIsWrittenThroughIt() async throws {
        var (exit, out, err) = try await cli.run(["queue"])
        XCTAssertEqual(exit.code, 0, out + err)
        let target = try victim()
        for name in ["lock", "sync.lock", "podq.log", "queue.sqlite-wal", "queue.sqlite-shm"] {
            let path = home + "/" + name
            unlink(path)
            XCTAssertEqual(symlink(target, path), 0, name)
            for command in [["queue"], ["download", "-v", server.dataURL(size: 1000, seed: 1, name: "a.mp3").absoluteString], ["sync", "status"]] {
                (exit, out, err) = try await cli.run(command, timeout: 20)
                XCTAssertEqual(exit.code, 5, "\(name), \(command): " + out + err)
                XCTAssertTrue(err.contains(path) && err.contains("symbolic link"), "\(name): " + err)
                XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), "precious\n", "\(name), \(command): nothing written through the link")
            }
            unlink(path)
        }
        (exit, out, err) = try await cli.run(["queue"])
        XCTAssertEqual(exit.code, 0, "with the links gone, podq starts again: " + out + err)
    }

    func testAFIFOInThePlaceOfAFileOfTheHomeIsRefusedNotWaitedOn() async throws {
        var (exit, out, err) = try await cli.run(["queue"])
        XCTAssertEqual(exit.code, 0, out + err)
        // (A FIFO at podq.log is only not logged to: VerifyCommandTests.)
        for name in ["lock", "sync.lock", "queue.sqlite-wal"] {
            unlink(home + "/" + name)
            XCTAssertEqual(mkfifo(home + "/" + name, 0o600), 0)
            (exit, out, err) = try await cli.run(["queue"], timeout: 20)
            XCTAssertEqual(exit.code, 5, name + ": " + out + err)
            XCTAssertTrue(err.contains("FIFO"), name + ": " + err)
            unlink(home + "/" + name)
        }
    }

    /// CONFIG.md: a config that cannot be read is exit 4, naming it. A FIFO hung every command.
    func testAFIFOAsTheConfigOrAnInputFileIsAClearErrorAtOnce() async throws {
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(home + "/config", 0o600), 0)
        for command in [["queue"], ["download"], ["refresh"]] {
            let (exit, out, err) = try await cli.run(command, timeout: 20)
            XCTAssertEqual(exit.code, 4, "\(command): " + out + err)
            XCTAssertTrue(err.contains(home + "/config") && err.contains("FIFO"), "\(command): " + err)
        }
        unlink(home + "/config")
        let fifo = dir.file("list.opml")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        for command in [["import", fifo], ["parse", fifo], ["add", fifo]] {
            let (exit, out, err) = try await cli.run(command, timeout: 20)
            XCTAssertNotEqual(exit.code, 0, "\(command): " + out + err)
            XCTAssertNotNil(exit.code, "\(command) ended (was: waited forever)")
            XCTAssertTrue(err.contains("FIFO"), "\(command): " + err)
        }
    }
}
