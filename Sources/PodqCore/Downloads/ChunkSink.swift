import Foundation
import NIOCore

/// The per-chunk work of a transfer, run on the network thread one chunk at a time: compare the
/// resume overlap, check the length, write, count progress.
final class ChunkSink: @unchecked Sendable {
    /// The body's first bytes differ from the partial file's last ones: start again from zero.
    struct OverlapMismatch: Error {}

    private unowned let operation: DownloadOperation
    private let writer: PartialFileWriter
    private let expected: Int64?
    private var toCompare: [UInt8]
    private var compared = 0
    /// Bytes of the file so far, the resumed prefix included.
    private(set) var written: Int64

    init(operation: DownloadOperation, writer: PartialFileWriter, expected: Int64?, overlapTail: [UInt8], written: Int64) {
        self.operation = operation
        self.writer = writer
        self.expected = expected
        self.toCompare = overlapTail
        self.written = written
    }

    /// True once the overlap (if any) has been compared in full.
    var overlapChecked: Bool { toCompare.isEmpty }

    func take(_ chunk: inout ByteBuffer) throws {
        if !toCompare.isEmpty {
            let n = min(chunk.readableBytes, toCompare.count - compared)
            let offset = compared
            let matches = chunk.withUnsafeReadableBytes { bytes in
                toCompare.withUnsafeBytes { memcmp(bytes.baseAddress!, $0.baseAddress! + offset, n) == 0 }
            }
            guard matches else { throw OverlapMismatch() }
            compared += n
            chunk.moveReaderIndex(forwardBy: n)
            if compared == toCompare.count {
                toCompare = []
                compared = 0
            }
            if chunk.readableBytes == 0 { return }
        }
        let count = chunk.readableBytes
        if let expected, written + Int64(count) > expected {
            throw DownloadError.bodyTooLong(expected: expected)
        }
        try chunk.withUnsafeReadableBytes { bytes throws(DownloadError) in try writer.write(bytes) }
        written += Int64(count)
        operation.addProgress(count)
    }
}
