import FoundationEssentials
import Glibc

/// A Unix domain socket's client end (mpv's IPC socket).
public enum UnixSocket {
    /// A descriptor connected to the socket at `path`; nil when nothing listens there (or the path is
    /// longer than a socket address holds). The caller closes it.
    public static func connect(_ path: String) -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            return nil
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Sends all of `text` on the connected socket `fd`. False when the other end has gone: said as
    /// `EPIPE`, never as the SIGPIPE a plain `write` raises, which would end podq (mpv quitting just as
    /// podq asked it for its position killed `podq play` before it stored what was heard).
    @discardableResult
    public static func send(_ fd: Int32, _ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            bytes = bytes.dropFirst(n)
        }
        return true
    }
}
