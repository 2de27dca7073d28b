import Foundation

/// A loopback port that refuses every connection for as long as this value lives: a socket bound to it
/// that never listens. No other listener can take the port meanwhile (a stopped server's port, or a
/// well-known one such as 9, could be taken or answered by something else).
public final class RefusedPort: Sendable {
    public let port: Int
    private let fd: Int32

    public init() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        port = bound ? Int(UInt16(bigEndian: address.sin_port)) : 9
    }

    /// `http://127.0.0.1:<port>` followed by `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    deinit { close(fd) }
}
