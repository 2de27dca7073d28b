import Foundation
import PodqTestSupport
import XCTest

@testable import PodqSession

/// Where mpv's socket goes, and what a killed `podq play` left behind.
final class MPVSocketTests: XCTestCase {
    /// Files of a podq that is gone are removed; those of a live one (this test's parent, a running
    /// child), and names that only look alike, stay.
    func testLeftoversOfAGoneProcessAreRemovedAndALiveOnesKept() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        // A pid that is gone: a child that has exited and been waited for.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        let gone = child.processIdentifier
        let live = getppid()
        let names = [
            "mpv-\(gone).sock", "mpv-\(gone).log", "mpv-\(live).sock", "mpv-\(live).log", "mpv-\(getpid()).sock",
            "mpv-\(gone)x.sock", "mpv-.sock", "mpv-\(gone).sock.bak", "notes.txt",
        ]
        for name in names { XCTAssertTrue(FileManager.default.createFile(atPath: dir.file(name), contents: Data())) }
        MPVSocket.removeLeftovers(in: dir.path)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: dir.path))
        XCTAssertEqual(left, Set(names).subtracting(["mpv-\(gone).sock", "mpv-\(gone).log"]))
    }

    /// A home short enough holds the socket; a deep one sends it to `$XDG_RUNTIME_DIR`.
    func testTheSocketGoesInTheHomeWhenItFitsElseTheRuntimeFolder() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let short = try XCTUnwrap(MPVSocket(home: dir.path, environment: [:], pid: 42))
        XCTAssertEqual(short.path, dir.file("mpv-42.sock"))
        XCTAssertNil(short.madeFolder)
        let deep = dir.path + "/" + String(repeating: "d", count: 120)
        let runtime = dir.file("run")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let moved = try XCTUnwrap(MPVSocket(home: deep, environment: ["XDG_RUNTIME_DIR": runtime], pid: 42))
        XCTAssertEqual(moved.path, runtime + "/podq-mpv-42.sock")
    }
}
