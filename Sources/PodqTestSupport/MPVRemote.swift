import Foundation
import PodqCore

/// A client of mpv's JSON IPC socket, for the tests that drive a real mpv that podq started: send a
/// command, read mpv's answer to it.
public final class MPVRemote {
    private let fd: Int32
    private var pending: [UInt8] = []

    /// Connects to `socket`; nil when nothing listens there (yet).
    public init?(socket: String) {
        guard let fd = UnixSocket.connect(socket) else { return nil }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.fd = fd
    }

    deinit { close(fd) }

    /// Sends `command` (`["get_property", "time-pos"]`) and returns the `data` of mpv's answer to it;
    /// nil when mpv answered with an error or closed the socket.
    @discardableResult
    public func send(_ command: [Any], id: Int = Int.random(in: 1...1_000_000)) -> Any? {
        guard let data = try? JSONSerialization.data(withJSONObject: ["command": command, "request_id": id]) else { return nil }
        // Sent without SIGPIPE: an mpv that just quit must not end the test process.
        guard UnixSocket.send(fd, String(decoding: data, as: UTF8.self) + "\n") else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let text = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                if let object = try? JSONSerialization.jsonObject(with: Data(text)) as? [String: Any], object["request_id"] as? Int == id {
                    return (object["error"] as? String) == "success" ? object["data"] ?? NSNull() : nil
                }
            }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return nil }
            pending += buffer[..<n]
        }
    }
}

/// A WAV file of silence, `seconds` long (8 kHz, 8-bit mono): a real audio file a player can play.
public func silentWAV(seconds: Int) -> [UInt8] {
    let samples = 8000 * seconds
    func le32(_ n: Int) -> [UInt8] { [UInt8(n & 0xFF), UInt8((n >> 8) & 0xFF), UInt8((n >> 16) & 0xFF), UInt8((n >> 24) & 0xFF)] }
    func le16(_ n: Int) -> [UInt8] { [UInt8(n & 0xFF), UInt8((n >> 8) & 0xFF)] }
    var out = Array("RIFF".utf8) + le32(36 + samples) + Array("WAVE".utf8)
    out += Array("fmt ".utf8) + le32(16) + le16(1) + le16(1) + le32(8000) + le32(8000) + le16(1) + le16(8)
    out += Array("data".utf8) + le32(samples) + [UInt8](repeating: 128, count: samples)
    return out
}
