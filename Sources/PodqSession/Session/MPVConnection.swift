import FoundationEssentials
import Glibc
import PodqBase

/// mpv's IPC for one `podq play`: a connected pair of Unix sockets, podq's end kept here and mpv's end
/// handed to it as `--input-ipc-client=fd://<n>` (mpv 0.33 and later). Nothing is on disk (no path to
/// fit in a socket's 107 bytes, no socket another program could connect to, nothing left behind), and
/// mpv quits when its connection closes: a podq killed with `kill -9`, or one that crashed, does not
/// leave mpv playing on.
package final class MPVConnection: Sendable {
    /// podq's end: ``MPVFollower`` reads and writes it, and closes it when it is done.
    package let podqEnd: Int32
    /// mpv's end: handed to the player (``Player/run(_:handing:)`` makes mpv alone inherit it, since
    /// it is close-on-exec everywhere else, and closes it in podq once mpv started).
    package let playerEnd: Int32

    /// Nil when the system gives no socket pair (out of descriptors).
    package init?() {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else { return nil }
        podqEnd = ends[0]
        playerEnd = ends[1]
    }

    /// The option that gives mpv its end.
    package var option: String { "--input-ipc-client=fd://\(playerEnd)" }

    /// Removes what a `podq play` killed with `kill -9` (or a crash) left in the home: `mpv-<pid>.log`
    /// and `mpv-<pid>.chapters` of a process that is gone, and `mpv-<pid>.sock` of an older podq, which
    /// kept mpv's socket there. Those of a podq still running are kept.
    package static func removeLeftovers(in home: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: home) else { return }
        for name in names where name.hasPrefix("mpv-") && [".sock", ".log", ".chapters"].contains(where: { name.hasSuffix($0) }) {
            let digits = name.dropFirst(4).prefix { $0.isASCII && $0.isNumber }
            guard let pid = Int32(digits), pid > 0, pid != getpid(), name.dropFirst(4 + digits.count).first == "." else { continue }
            guard [".sock", ".log", ".chapters"].contains(String(name.dropFirst(4 + digits.count))) else { continue }
            if kill(pid, 0) == -1 && errno == ESRCH { unlink(LexicalPath.join(home, name)) }
        }
    }
}
