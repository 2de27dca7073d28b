import Foundation
import NIOCore
import Synchronization

/// The per-chunk work of a transfer, run on the network thread one chunk at a time: compare the
/// resume overlap, check the length, write, count progress.
///
/// Its state sits behind a `Mutex` that is never contended (one chunk at a time, in order): the lock
/// costs ~20 ns a chunk and makes the type `Sendable` without an exception.
final class ChunkSink: Sendable {
    /// The body's first bytes differ from the partial file's last ones: start again from zero.
    struct OverlapMismatch: Error {}

    private struct State {
        let writer: PartialFileWriter
        var toCompare: [UInt8]
        var compared = 0
        var written: Int64
        /// The URL, while the body's first bytes are still to be checked for a web page.
        var sniffWebPage: String?
    }

    private let operation: DownloadOperation
    private let expected: Int64?
    private let state: Mutex<State>

    init(operation: DownloadOperation, writer: sending PartialFileWriter, expected: Int64?, overlapTail: [UInt8], written: Int64,
         sniffWebPage: String? = nil) {
        self.operation = operation
        self.expected = expected
        self.state = Mutex(State(writer: writer, toCompare: overlapTail, written: written, sniffWebPage: sniffWebPage))
    }

    /// True when `bytes` start (after a BOM and white space) like an HTML document.
    static func looksLikeWebPage(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
        for marker in ["<!doctype html", "<html"] {
            let m = Array(marker.utf8)
            guard bytes.count - i >= m.count else { continue }
            if (0..<m.count).allSatisfy({ bytes[i + $0] | 0x20 == m[$0] | 0x20 }) { return true }
        }
        return false
    }

    /// Bytes of the file so far, the resumed prefix included.
    var written: Int64 { state.withLock { $0.written } }

    /// True once the overlap (if any) has been compared in full.
    var overlapChecked: Bool { state.withLock { $0.toCompare.isEmpty } }

    /// Closes the writer's stream.
    func close() { state.withLock { $0.writer.close() } }

    func take(_ chunk: inout ByteBuffer) throws {
        let count: Int = try state.withLock { (state: inout State) throws -> Int in
            if !state.toCompare.isEmpty {
                let n = min(chunk.readableBytes, state.toCompare.count - state.compared)
                let offset = state.compared
                let matches = chunk.withUnsafeReadableBytes { bytes in
                    state.toCompare.withUnsafeBytes { memcmp(bytes.baseAddress!, $0.baseAddress! + offset, n) == 0 }
                }
                guard matches else { throw OverlapMismatch() }
                state.compared += n
                chunk.moveReaderIndex(forwardBy: n)
                if state.compared == state.toCompare.count {
                    state.toCompare = []
                    state.compared = 0
                }
                if chunk.readableBytes == 0 { return 0 }
            }
            let count = chunk.readableBytes
            if let url = state.sniffWebPage {
                state.sniffWebPage = nil
                if chunk.withUnsafeReadableBytes(Self.looksLikeWebPage) { throw DownloadError.webPage(url: url) }
            }
            if let expected, state.written + Int64(count) > expected {
                throw DownloadError.bodyTooLong(expected: expected)
            }
            let writer = state.writer
            try chunk.withUnsafeReadableBytes { bytes throws(DownloadError) in try writer.write(bytes) }
            state.written += Int64(count)
            return count
        }
        if count > 0 { operation.addProgress(count) }
    }
}
