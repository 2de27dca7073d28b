import Glibc
import PodqUI
import XCTest

@testable import PodqTerminal

/// The screen on a real curses start (a socket for a terminal): what a frame costs the terminal and
/// what reaches it (drawing itself is covered end to end in tmux).
final class CursesScreenTests: XCTestCase {
    /// A frame of scattered changes reaches the terminal as one write, not one per cursor move (ncurses,
    /// which drew the frames before, flushed at each move). The terminal here is a
    /// `SOCK_SEQPACKET` socket: every write arrives as one message, so the messages are the writes.
    @MainActor
    func testAFrameOfScatteredChangesIsOneWrite() async throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds), 0)
        defer { fds.forEach { _ = close($0) } }
        XCTAssertEqual(fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK), 0)
        func writes() -> (count: Int, text: String) {
            var count = 0
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = recv(fds[1], &buffer, buffer.count, 0)
                if n <= 0 { break }
                count += 1
                bytes += buffer[0..<n]
            }
            return (count, String(decoding: bytes, as: UTF8.self))
        }

        let screen = try CursesScreen(input: fds[0], output: fds[0], term: "xterm-256color", mouse: false)
        defer { screen.restore() }
        let (width, height) = screen.size
        XCTAssertGreaterThan(width * height, 400)
        var grid = Grid(width: width, height: height)
        for y in 0..<height { _ = grid.put(String(repeating: ".", count: width), x: 0, y: y) }
        screen.draw(grid)
        _ = writes()

        var random = SystemRandomNumberGenerator()
        for frame in 0..<5 {
            var changed = grid
            var cells = Set<Int>()
            while cells.count < 100 { cells.insert(Int.random(in: 0..<(width * height), using: &random)) }
            // Greek letters: no escape sequence holds them.
            let letter = String(Array("αβγδε")[frame])
            for cell in cells { _ = changed.put(letter, x: cell % width, y: cell / width, style: cell.isMultiple(of: 3) ? .accent : .normal) }
            screen.draw(changed)
            let out = writes()
            XCTAssertEqual(out.count, 1, "frame \(frame): 100 changed cells went out in \(out.count) writes")
            XCTAssertEqual(out.text.filter { String($0) == letter }.count, 100, "frame \(frame): every changed cell is drawn")
            grid = changed
        }
    }
}
