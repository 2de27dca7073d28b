import Foundation
import Synchronization

/// A small forward HTTP proxy for the tests, on 127.0.0.1 and a free port: absolute-URI requests
/// (`GET http://host/path`) are passed on with `Connection: close`, and `CONNECT host:port` opens a
/// tunnel (HTTPS through the proxy). Every request it took is recorded, so a test can prove that the
/// traffic went through it. Blocking sockets, a thread per connection: tests send a few requests.
public final class ForwardProxy: Sendable {
    /// One request the proxy took.
    public struct Seen: Sendable, Equatable {
        /// `GET`, `CONNECT`…
        public var method: String
        /// The absolute URL, or `host:port` for CONNECT.
        public var target: String
        /// The `Proxy-Authorization` header, if any.
        public var authorization: String?
    }

    /// The port it listens on.
    public let port: Int
    private let listener: Int32
    private let seen = Mutex<[Seen]>([])
    /// The `Proxy-Authorization` the proxy wants (a 407 without it), or nil for none.
    private let wanted: String?

    /// Starts the proxy; with `login`, it answers 407 to requests without that user and password.
    public init(login: (user: String, password: String)? = nil) throws {
        self.wanted = login.map { "Basic " + Data("\($0.user):\($0.password)".utf8).base64EncodedString() }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        self.listener = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// `http://127.0.0.1:<port>`.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// Every request taken so far.
    public var requests: [Seen] { seen.withLock { $0 } }

    /// Stops accepting connections.
    public func stop() { shutdown(listener, Int32(SHUT_RDWR)); close(listener) }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let thread = Thread { [self] in serve(client) }
            thread.start()
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        guard let (head, rest) = readHead(client) else { return }
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ").map(String.init)
        guard requestLine.count == 3 else { return }
        let (method, target) = (requestLine[0], requestLine[1])
        let authorization = lines.first { $0.lowercased().hasPrefix("proxy-authorization:") }
            .map { String($0.dropFirst("proxy-authorization:".count)).trimmingCharacters(in: .whitespaces) }
        seen.withLock { $0.append(Seen(method: method, target: target, authorization: authorization)) }
        if let wanted, authorization != wanted {
            send(client, "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"test proxy\"\r\nContent-Length: 0\r\n\r\n")
            return
        }
        if method == "CONNECT" {
            let parts = target.split(separator: ":")
            guard parts.count == 2, let port = Int(parts[1]), let upstream = connectTo(String(parts[0]), port) else {
                send(client, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
                return
            }
            defer { close(upstream) }
            send(client, "HTTP/1.1 200 Connection Established\r\n\r\n")
            if !rest.isEmpty { _ = rest.withUnsafeBytes { write(upstream, $0.baseAddress, $0.count) } }
            relay(client, upstream)
            return
        }
        guard let url = URL(string: target), let host = url.host, let upstream = connectTo(host, url.port ?? 80) else {
            send(client, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            return
        }
        defer { close(upstream) }
        let path = url.path.isEmpty ? "/" : url.path + (url.query.map { "?" + $0 } ?? "")
        let kept = lines.filter { line in
            let name = line.lowercased()
            return !line.isEmpty && !name.hasPrefix("proxy-") && !name.hasPrefix("connection:")
        }
        send(upstream, "\(method) \(path) HTTP/1.1\r\n" + kept.joined(separator: "\r\n") + "\r\nConnection: close\r\n\r\n")
        if !rest.isEmpty { _ = rest.withUnsafeBytes { write(upstream, $0.baseAddress, $0.count) } }
        relay(client, upstream)
    }

    /// Reads up to the end of the head; returns it and any bytes after it.
    private func readHead(_ fd: Int32) -> (String, [UInt8])? {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while buffer.count < 64 * 1024 {
            let n = read(fd, &chunk, chunk.count)
            guard n > 0 else { return nil }
            buffer += chunk[0..<n]
            if let end = buffer.indices.dropLast(3).first(where: { buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10 }) {
                return (String(decoding: buffer[..<end], as: UTF8.self), Array(buffer[(end + 4)...]))
            }
        }
        return nil
    }

    private func connectTo(_ host: String, _ port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host == "localhost" ? "127.0.0.1" : host)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(fd); return nil }
        return fd
    }

    private func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// Copies bytes both ways until either side closes.
    private func relay(_ a: Int32, _ b: Int32) {
        var fds = [pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while poll(&fds, 2, 30_000) > 0 {
            for i in 0..<2 where fds[i].revents != 0 {
                let n = read(fds[i].fd, &buffer, buffer.count)
                guard n > 0 else { return }
                var sent = 0
                while sent < n {
                    let w = buffer.withUnsafeBytes { write(fds[1 - i].fd, $0.baseAddress! + sent, n - sent) }
                    guard w > 0 else { return }
                    sent += w
                }
            }
        }
    }
}
