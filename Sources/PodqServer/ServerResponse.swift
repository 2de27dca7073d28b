import NIOCore

/// Bytes a response can send from any offset, without holding them all in memory.
public protocol ServerBodySource: Sendable {
    /// The full length.
    var length: Int64 { get }
    /// Appends `count` bytes starting at `offset` to `buffer`.
    func write(into buffer: inout ByteBuffer, offset: Int64, count: Int)
}

/// What a route answers, including the faults to inject while sending it.
public struct ServerResponse: Sendable {
    /// The body to send.
    public enum Body: Sendable {
        case empty
        case bytes([UInt8])
        /// `range` of `source`.
        case source(any ServerBodySource, range: Range<Int64>)
    }

    /// A pause in the body: after `afterBytes`, send nothing for `seconds`.
    public struct Stall: Sendable {
        public var afterBytes: Int64
        public var seconds: Double
        public init(afterBytes: Int64, seconds: Double) {
            self.afterBytes = afterBytes
            self.seconds = seconds
        }
    }

    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Body
    /// Send `Transfer-Encoding: chunked` and no `Content-Length`.
    public var chunked = false
    /// Limit the body to this many bytes a second.
    public var bytesPerSecond: Int?
    /// Close the connection after this many body bytes.
    public var dropAfter: Int64?
    /// Pause once during the body.
    public var stall: Stall?
    /// Wait this many seconds before the head (a server slow to answer at all).
    public var headDelay: Double?
    /// Announce this `Content-Length` instead of the real one (a server that lies).
    public var announcedLength: Int64?

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The number of body bytes the response holds.
    public var bodyLength: Int64 {
        switch body {
        case .empty: 0
        case .bytes(let bytes): Int64(bytes.count)
        case .source(_, let range): Int64(range.count)
        }
    }

    /// A plain-text response.
    public static func text(_ status: Int, _ text: String, headers: [(name: String, value: String)] = []) -> ServerResponse {
        ServerResponse(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8")] + headers,
            body: .bytes(Array(text.utf8)))
    }
}
