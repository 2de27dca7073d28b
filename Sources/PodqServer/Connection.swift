import FoundationEssentials
import Glibc
import NIOCore
import NIOHTTP1

/// One client connection: reads requests, asks the route, writes the response with its faults.
struct Connection {
    let id: Int
    let channel: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>
    let log: ServerLog
    let route: HTTPServer.Route
    /// Set: the responses leave in random pieces, and some connections stay open after a response that
    /// was asked to close them (a server that ignores `Connection: close`).
    var segmenting: Segmenting? = nil
    /// What the segmenting handler holds unwritten: the body waits while it is over its limit.
    var backlog: SegmentingBacklog? = nil

    /// The largest body write, and the step of a throttled body.
    static let chunkSize = 64 * 1024

    /// How a connection goes on after a response.
    enum After {
        /// Reads the next request.
        case keepOpen
        /// Closes once every byte of the response went out: the output is shut, and the connection
        /// closes when the client, having read to the end, closes its side. (Closing at once would drop
        /// what the socket had not sent yet, and a client asking `Connection: close` would see a short body.)
        case close
        /// Closes at once, the body cut short on purpose.
        case drop
    }

    func serve() async {
        var random = SeededGenerator(seed: (segmenting?.seed ?? 0) ^ UInt64(id) &* 0x9E37_79B9)
        let ignoresClose = segmenting.map { Double.random(in: 0..<1, using: &random) < $0.keepOpenShare } ?? false
        try? await channel.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            var body: [UInt8] = []
            var closing = false
            for try await part in inbound where !closing {
                switch part {
                case .head(let h):
                    head = h
                    body = []
                case .body(let bytes):
                    if body.count + bytes.readableBytes <= ServerRequest.bodyLimit { body += bytes.readableBytesView }
                case .end:
                    guard let h = head else { return }
                    head = nil
                    switch try await answer(h, body: body, outbound: outbound, ignoresClose: ignoresClose) {
                    case .keepOpen: break
                    case .close:
                        outbound.finish()
                        closing = true
                    case .drop: return
                    }
                }
            }
        }
    }

    /// Writes the response; says how the connection goes on.
    private func answer(
        _ head: HTTPRequestHead, body: [UInt8], outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>,
        ignoresClose: Bool
    ) async throws -> After {
        let request = log.begin { sequence in
            ServerRequest(
                sequence: sequence, method: head.method.rawValue, uri: head.uri,
                headers: head.headers.map { ($0.name, $0.value) }, connection: id, body: body)
        }
        var sent: Int64 = 0
        var completed = false
        defer { log.end(sequence: request.sequence, bytesSent: sent, completed: completed) }

        let response = await route(request)
        var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
        if response.chunked {
            headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
        } else {
            headers.replaceOrAdd(name: "Content-Length", value: String(response.announcedLength ?? response.bodyLength))
        }
        let keepAlive = (head.isKeepAlive || ignoresClose) && response.dropAfter == nil && response.announcedLength == nil
        headers.replaceOrAdd(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        let responseHead = HTTPResponseHead(version: head.version, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
        if let delay = response.headDelay { try await Task.sleep(for: .milliseconds(Int(delay * 1000))) }
        try await outbound.write(.head(responseHead))

        let isHead = head.method == .HEAD
        let length = isHead ? 0 : response.bodyLength
        let limit = min(length, response.dropAfter ?? Int64.max)
        var stall = response.stall
        let step = response.bytesPerSecond.map { max(1, min(Self.chunkSize, $0 / 20)) } ?? Self.chunkSize
        let started = ContinuousClock.now
        var buffer = channel.channel.allocator.buffer(capacity: step)
        while sent < limit {
            if let s = stall, sent >= s.afterBytes {
                try await Task.sleep(for: .milliseconds(Int(s.seconds * 1000)))
                stall = nil
            }
            var count = Int(min(Int64(step), limit - sent))
            if let s = stall, s.afterBytes > sent { count = Int(min(Int64(count), s.afterBytes - sent)) }
            buffer.clear()
            fill(&buffer, body: response.body, offset: sent, count: count)
            try await outbound.write(.body(.byteBuffer(buffer)))
            sent += Int64(count)
            while let backlog, backlog.bytes.load(ordering: .relaxed) > SegmentingBacklog.limit, channel.channel.isActive {
                try await Task.sleep(for: .milliseconds(1))
            }
            // No wait after the last byte: the client has the whole body then, and goes on.
            if let rate = response.bytesPerSecond, sent < limit {
                // Sleep until the schedule for this many bytes at `rate` bytes a second.
                let due = started + .nanoseconds(Int64(Double(sent) / Double(rate) * 1e9))
                let now = ContinuousClock.now
                if due > now { try await Task.sleep(for: due - now) }
            }
        }
        // A stall due at the last byte sent still happens (before a drop, say, so that the client has
        // read everything when the connection closes).
        if let s = stall, sent >= s.afterBytes { try await Task.sleep(for: .milliseconds(Int(s.seconds * 1000))) }
        if response.dropAfter != nil {
            return .drop  // close without ending the body: the client sees a short body
        }
        // With a length, the body is whole once its last byte went: the client may close before the
        // end is written (it has everything). A chunked body ends with its last chunk, in `.end`.
        if !response.chunked && sent == length { completed = true }
        try await outbound.write(.end(nil))
        completed = true
        return keepAlive ? .keepOpen : .close
    }

    private func fill(_ buffer: inout ByteBuffer, body: ServerResponse.Body, offset: Int64, count: Int) {
        switch body {
        case .empty: break
        case .bytes(let bytes): buffer.writeBytes(bytes[Int(offset)..<Int(offset) + count])
        case .source(let source, let range): source.write(into: &buffer, offset: range.lowerBound + offset, count: count)
        }
    }
}
