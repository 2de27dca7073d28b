import Foundation
import XCTest

@testable import PodqCore

/// The client end of mpv's socket.
final class UnixSocketTests: XCTestCase {
    /// The other end gone (mpv quit): a send says so, and never raises SIGPIPE, which would end the
    /// process (this test's, here, with the default action restored for the call).
    func testSendingToASocketWhoseOtherEndHasGoneFailsWithoutASignal() throws {
        var pair: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair), 0)
        defer { close(pair[0]) }
        XCTAssertTrue(UnixSocket.send(pair[0], "{\"command\":[\"get_property\",\"time-pos\"]}\n"), "both ends open")
        close(pair[1])
        let previous = signal(SIGPIPE, SIG_DFL)
        defer { signal(SIGPIPE, previous) }
        XCTAssertFalse(UnixSocket.send(pair[0], "{\"command\":[\"observe_property\",1,\"time-pos\"]}\n"))
        XCTAssertEqual(errno, EPIPE)
    }

    func testNothingListeningIsNil() {
        XCTAssertNil(UnixSocket.connect(NSTemporaryDirectory() + "podq-nobody-\(getpid()).sock"))
        XCTAssertNil(UnixSocket.connect("/" + String(repeating: "a", count: 200)), "longer than a socket address")
    }
}
