import Foundation
import PodqTestSupport

/// nginx on 127.0.0.1 serving a folder, started for one bench run and stopped after it.
///
/// `/files/…` is served at full speed and `/slow/…` at `slowRate` bytes a second per connection (for
/// the resume row, so that a kill lands near the middle). The access log records each request's
/// path, status, `Range` and body bytes sent, which is how bytes fetched twice are counted.
final class Nginx {
    let root: String
    let port: Int
    let slowRate: Int
    private let prefix: String
    private var process: ChildProcess?

    /// Writes the config into `prefix` and starts nginx; throws when it does not answer.
    /// - Parameter digests: files of `root` served under `/digest/<name>` at `slowRate` with this
    ///   `Repr-Digest` (RFC 9530) value: what lets podq split a file (docs/FILES.md).
    init(root: String, prefix: String, slowRate: Int, digests: [String: String] = [:]) throws {
        self.root = root
        self.prefix = prefix
        self.slowRate = slowRate
        self.port = try Self.freePort()
        try FileManager.default.createDirectory(atPath: prefix + "/logs", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: prefix + "/tmp", withIntermediateDirectories: true)
        let config = """
            daemon off;
            worker_processes 2;
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/logs/error.log warn;
            \(getuid() == 0 ? "user root;" : "")
            events { worker_connections 1024; }
            http {
              log_format bench '$uri $status $body_bytes_sent "$http_range"';
              access_log \(prefix)/logs/access.log bench;
              client_body_temp_path \(prefix)/tmp; proxy_temp_path \(prefix)/tmp; fastcgi_temp_path \(prefix)/tmp;
              uwsgi_temp_path \(prefix)/tmp; scgi_temp_path \(prefix)/tmp;
              sendfile on; tcp_nopush on; keepalive_requests 10000;
              default_type application/octet-stream;
              server {
                listen 127.0.0.1:\(port);
                location /files/ { alias \(root)/; }
                location /slow/ { alias \(root)/; limit_rate \(slowRate); }
                location /feeds/ { alias \(root)/; default_type application/rss+xml; }
            \(digests.sorted { $0.key < $1.key }.map { name, digest in
                "    location = /digest/\(name) { alias \(root)/\(name); limit_rate \(slowRate); add_header Repr-Digest \"\(digest)\"; }"
            }.joined(separator: "\n"))
              }
            }

            """
        try config.write(toFile: prefix + "/nginx.conf", atomically: true, encoding: .utf8)
        process = try ChildProcess(
            executable: Self.executable, arguments: ["-c", prefix + "/nginx.conf", "-p", prefix, "-e", prefix + "/logs/error.log"],
            directory: prefix + "/logs")
        for _ in 0..<200 {
            if Self.answers(port: port) { return }
            usleep(25_000)
        }
        stop()
        throw BenchError.setup("nginx did not start on 127.0.0.1:\(port); see \(prefix)/logs/error.log")
    }

    /// nginx from PATH or Debian's /usr/sbin.
    static var executable: String {
        for path in ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx"] where FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        return "nginx"
    }

    /// A URL of a file in `root`: `/files/name` or `/slow/name`.
    func url(_ name: String, slow: Bool = false) -> String {
        "http://127.0.0.1:\(port)/\(slow ? "slow" : "files")/\(name)"
    }

    /// The URL of a file given in `digests`: throttled, with its `Repr-Digest`.
    func digestURL(_ name: String) -> String { "http://127.0.0.1:\(port)/digest/\(name)" }

    /// Forgets the requests logged so far.
    func clearLog() {
        _ = truncate(prefix + "/logs/access.log", 0)
    }

    /// The body bytes sent for `name` since ``clearLog()``, over every request.
    func bytesSent(for name: String) -> Int64 {
        let log = (try? String(contentsOfFile: prefix + "/logs/access.log", encoding: .utf8)) ?? ""
        return log.split(separator: "\n").reduce(Int64(0)) { sum, line in
            let fields = line.split(separator: " ")
            guard fields.count >= 3, fields[0].hasSuffix("/" + name), let bytes = Int64(fields[2]) else { return sum }
            return sum + bytes
        }
    }

    /// The nginx version line, e.g. `nginx/1.22.1`.
    static func version() -> String {
        Tool.firstLine(of: [executable, "-v"], stderr: true) ?? "nginx"
    }

    func stop() {
        guard let process else { return }
        process.send(SIGQUIT)
        if process.wait(timeout: 5).code == nil { process.send(SIGKILL) }
        self.process = nil
    }

    deinit { stop() }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw BenchError.setup("no free port on 127.0.0.1") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func answers(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// Why a bench could not run or found a wrong result.
enum BenchError: Error, CustomStringConvertible {
    case setup(String)
    case mismatch(String)

    var description: String {
        switch self {
        case .setup(let reason): return "bench setup: \(reason)"
        case .mismatch(let reason): return "bench check failed: \(reason)"
        }
    }
}
