import Foundation
import NIOCore
import NIOHTTP1
import PodqCore
import PodqHTTP
import Synchronization

/// An in-memory ``HTTPTransport`` for unit tests of ``DownloadOperation``: each request is answered by
/// the test's script and recorded. The loopback server tests stay; this one lets a test act between
/// two chunks (change the disk, look at what was saved) with no timing involved.
public final class MemoryTransport: HTTPTransport {
    /// One scripted answer.
    public struct Reply: Sendable {
        public var status: Int
        public var headers: [(String, String)]
        public var chunks: [[UInt8]]
        /// The body fails with this after its chunks.
        public var failure: DownloadError?
        /// Runs before chunk number `index` (from 0) is handed over.
        public var beforeChunk: (@Sendable (_ index: Int) async -> Void)?

        public init(
            status: Int, headers: [(String, String)] = [], chunks: [[UInt8]] = [], failure: DownloadError? = nil,
            beforeChunk: (@Sendable (Int) async -> Void)? = nil
        ) {
            self.status = status
            self.headers = headers
            self.chunks = chunks
            self.failure = failure
            self.beforeChunk = beforeChunk
        }

        /// A `200` with `bytes` in chunks of `chunkSize`, a `Content-Length` and these extra headers.
        public static func ok(_ bytes: [UInt8], chunkSize: Int = 1000, headers: [(String, String)] = []) -> Reply {
            Reply(status: 200, headers: [("Content-Length", String(bytes.count))] + headers, chunks: split(bytes, chunkSize))
        }

        /// A `206` sending `bytes[from...]` of a file of `bytes.count`.
        public static func partial(_ bytes: [UInt8], from: Int, chunkSize: Int = 1000, headers: [(String, String)] = []) -> Reply {
            let rest = Array(bytes[from...])
            return Reply(
                status: 206,
                headers: [
                    ("Content-Length", String(rest.count)),
                    ("Content-Range", "bytes \(from)-\(bytes.count - 1)/\(bytes.count)"),
                ] + headers,
                chunks: split(rest, chunkSize))
        }

        static func split(_ bytes: [UInt8], _ size: Int) -> [[UInt8]] {
            stride(from: 0, to: bytes.count, by: max(1, size)).map { Array(bytes[$0..<min(bytes.count, $0 + size)]) }
        }
    }

    private let script: @Sendable (TransportRequest, Int) -> Reply
    /// Every request, in order.
    public let requests = Recorder<TransportRequest>()

    /// - Parameter script: the answer to each request, given with its number (from 0).
    public init(_ script: @escaping @Sendable (_ request: TransportRequest, _ number: Int) -> Reply) {
        self.script = script
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let number = requests.values.count
        requests.append(request)
        let reply = script(request, number)
        var headers = HTTPHeaders()
        for (name, value) in reply.headers { headers.add(name: name, value: value) }
        let chunks = reply.chunks, failure = reply.failure, before = reply.beforeChunk
        let next = Mutex(0)
        let body = AsyncThrowingStream<ByteBuffer, any Error> {
            let index = next.withLock { index in
                defer { index += 1 }
                return index
            }
            guard index < chunks.count else {
                if let failure { throw failure }
                return nil
            }
            await before?(index)
            return ByteBuffer(bytes: chunks[index])
        }
        return TransportResponse(status: reply.status, headers: headers, body: ResponseBody(body))
    }
}
