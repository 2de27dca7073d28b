import Foundation
import Synchronization

/// A pseudo-terminal for driving a full-screen program without tmux in between: the program gets
/// the terminal device as its input and output; a thread drains what it draws (so it never blocks
/// on a full terminal), and ``send(_:)`` types keys. Used by `podq-bench library` to time keys.
public final class PseudoTerminal: Sendable {
    /// The terminal device to give the program (`/dev/pts/N`).
    public let device: String
    private let master: Int32
    private let drained = Drained()

    private struct Output {
        var bytes = 0
        var tail: [UInt8] = []
        var closed = false
    }

    private final class Drained: Sendable {
        let output = Mutex(Output())
    }

    /// Opens a terminal of `width` × `height` cells.
    public init(width: Int, height: Int) throws {
        // Linux's /dev/ptmx with its ioctls: Glibc's module imports neither ptsname nor unlockpt (and
        // grantpt has nothing to do on devpts). TIOCSPTLCK 0 unlocks, TIOCGPTN gives the number.
        let fd = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard fd >= 0, ioctl(fd, 0x4004_5431, &unlock) == 0, ioctl(fd, 0x8004_5430, &number) == 0 else {
            throw NSError(
                domain: NSPOSIXErrorDomain, code: Int(errno),
                userInfo: [NSLocalizedDescriptionKey: "cannot open a pseudo-terminal: \(String(cString: strerror(errno)))"])
        }
        master = fd
        device = "/dev/pts/\(number)"
        var size = winsize(ws_row: UInt16(height), ws_col: UInt16(width), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(fd, UInt(TIOCSWINSZ), &size)
        let drained = self.drained
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                drained.output.withLock {
                    $0.bytes += n
                    $0.tail.append(contentsOf: buffer[0..<n])
                    if $0.tail.count > 262_144 { $0.tail.removeFirst($0.tail.count - 131_072) }
                }
            }
            drained.output.withLock { $0.closed = true }
        }
    }

    /// Types `text` (UTF-8, escape sequences included) into the terminal.
    public func send(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            offset += n
        }
    }

    /// The number of bytes the program has drawn so far.
    public var bytesDrawn: Int { drained.output.withLock { $0.bytes } }

    /// The last bytes drawn, as text (escape sequences included).
    public var recentOutput: String { drained.output.withLock { String(decoding: $0.tail, as: UTF8.self) } }

    /// Closes the terminal (the program sees a hang-up).
    public func close() { _ = Glibc.close(master) }

    /// `CLOCK_MONOTONIC` in nanoseconds: the clock the TUI's frame trace (`PODQ_TRACE_FRAMES`) uses.
    public static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
