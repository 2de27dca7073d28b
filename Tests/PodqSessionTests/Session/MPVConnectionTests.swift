import Foundation
import PodqCore
import PodqTestSupport
import Synchronization
import XCTest

@testable import PodqSession

/// mpv's IPC connection: a socket pair whose player end only the player inherits, followed to its end,
/// and what a killed `podq play` left behind.
final class MPVConnectionTests: XCTestCase {
    /// The player inherits its end under the same number (close-on-exec is lifted for it alone), podq's
    /// copy is closed once it started: podq's end reads what the player wrote, then the end of the file
    /// when the player exits, not later.
    func testThePlayerAloneInheritsItsEndAndPodqsEndSeesItQuit() throws {
        let connection = try XCTUnwrap(MPVConnection())
        XCTAssertNotEqual(fcntl(connection.playerEnd, F_GETFD) & FD_CLOEXEC, 0, "close-on-exec in podq")
        let exit = try Player.run(
            ["/bin/bash", "-c", "printf 'hello from %s\\n' \"$0\" >&\(connection.playerEnd)", "the player"], handing: [connection.playerEnd])
        XCTAssertEqual(exit.status, 0)
        var text: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(connection.podqEnd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while true {
            let n = buffer.withUnsafeMutableBytes { read(connection.podqEnd, $0.baseAddress, $0.count) }
            // A timeout here (-1) means podq's copy of the player's end is still open.
            XCTAssertGreaterThanOrEqual(n, 0, "the end of the file, not a timeout (errno \(errno))")
            guard n > 0 else { break }
            text += buffer[..<n]
        }
        close(connection.podqEnd)
        XCTAssertEqual(String(decoding: text, as: UTF8.self), "hello from the player\n")
    }

    /// A child started without the end (any other program podq runs) does not get it.
    func testAnotherChildDoesNotInheritThePlayersEnd() throws {
        let connection = try XCTUnwrap(MPVConnection())
        defer {
            close(connection.podqEnd)
            close(connection.playerEnd)
        }
        let exit = try Player.run(["/bin/bash", "-c", "printf x >&\(connection.playerEnd)"])
        XCTAssertNotEqual(exit.status, 0, "the descriptor is not open in a child it was not handed to")
    }

    /// The follower reads mpv's lines on podq's end until mpv's end closes: the position, the duration,
    /// the end of the file; it asked for both properties first.
    func testTheFollowerHearsWhatMPVSaysUntilItsEndCloses() throws {
        let connection = try XCTUnwrap(MPVConnection())
        let places = Mutex<[Int]>([])
        let follower = MPVFollower(connection: connection.podqEnd, started: 0) { place in places.withLock { $0.append(place) } }
        follower.start()
        var asked: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while asked.filter({ $0 == UInt8(ascii: "\n") }).count < 2 {
            let n = buffer.withUnsafeMutableBytes { read(connection.playerEnd, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            asked += buffer[..<n]
        }
        XCTAssertTrue(String(decoding: asked, as: UTF8.self).contains(#""observe_property",1,"time-pos""#))
        let lines = [
            #"{"request_id":0,"error":"success"}"#, #"{"event":"property-change","name":"duration","data":60.0}"#,
            #"{"event":"property-change","name":"time-pos","data":12.5}"#, #"{"event":"property-change","name":"time-pos","data":59.9}"#,
            #"{"event":"end-file","reason":"eof"}"#,
        ]
        XCTAssertTrue(UnixSocket.send(connection.playerEnd, lines.joined(separator: "\n") + "\n"))
        close(connection.playerEnd)
        let heard = follower.finish()
        XCTAssertTrue(follower.connected)
        XCTAssertEqual(heard.position, 59.9)
        XCTAssertEqual(heard.duration, 60)
        XCTAssertTrue(heard.reachedEnd)
        XCTAssertEqual(places.withLock { $0 }, [12, 59])
    }

    /// A player that sends an endless line (20 MB, no newline) among lines cut anywhere: the endless
    /// line is skipped to its end (read once, never kept, its tail not taken for a line of its own), and
    /// the lines before and after it are heard.
    func testAnEndlessLineIsSkippedAndLinesCutAnywhereAreHeard() throws {
        let connection = try XCTUnwrap(MPVConnection())
        let follower = MPVFollower(connection: connection.podqEnd, started: 0)
        follower.start()
        let written = DispatchSemaphore(value: 0)
        let end = connection.playerEnd
        Thread {
            let before = #"{"event":"property-change","name":"time-pos","data":12.0}"# + "\n"
            // Byte by byte: every cut of a line.
            for byte in before.utf8 { _ = UnixSocket.send(end, String(decoding: [byte], as: UTF8.self)) }
            let chunk = String(repeating: "x", count: 1 << 20)
            for _ in 0..<20 { _ = UnixSocket.send(end, chunk) }
            _ = UnixSocket.send(end, #"{"event":"property-change","name":"time-pos","data":42.0}"# + "\n")
            _ = UnixSocket.send(end, #"{"event":"property-change","name":"duration","data":61.0}"# + "\n")
            close(end)
            written.signal()
        }.start()
        XCTAssertEqual(written.wait(timeout: .now() + 120), .success, "the reader took the 20 MB")
        let heard = follower.finish()
        XCTAssertTrue(follower.connected)
        XCTAssertEqual(heard.position, 12, "the endless line's tail is not a line")
        XCTAssertEqual(heard.duration, 61, "the line after the endless one is heard")
    }

    /// A player that never answers: the follower ends when its end closes, and says it never heard it.
    func testAPlayerThatNeverAnswersIsNotConnected() throws {
        let connection = try XCTUnwrap(MPVConnection())
        let follower = MPVFollower(connection: connection.podqEnd, started: 30)
        follower.start()
        close(connection.playerEnd)
        let heard = follower.finish()
        XCTAssertFalse(follower.connected)
        XCTAssertEqual(heard.position, 30, "the place it started at")
    }

    /// Files of a podq that is gone are removed (its log and chapters, an older podq's socket); those of
    /// a live one (this test's parent, this process), and names that only look alike, stay.
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
            "mpv-\(gone).sock", "mpv-\(gone).log", "mpv-\(gone).chapters", "mpv-\(live).sock", "mpv-\(live).log", "mpv-\(getpid()).log",
            "mpv-\(gone)x.sock", "mpv-.sock", "mpv-\(gone).sock.bak", "mpv-\(gone).x.log", "notes.txt",
        ]
        for name in names { XCTAssertTrue(FileManager.default.createFile(atPath: dir.file(name), contents: Data())) }
        MPVConnection.removeLeftovers(in: dir.path)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: dir.path))
        XCTAssertEqual(left, Set(names).subtracting(["mpv-\(gone).sock", "mpv-\(gone).log", "mpv-\(gone).chapters"]))
    }
}
