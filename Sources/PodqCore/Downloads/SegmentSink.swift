import Foundation
import NIOCore
import Synchronization

/// The per-chunk work of one segment's connection, run on the network thread one chunk at a time:
/// check a fresh body's first bytes (and only then empty an old partial and let the other connections
/// start), reserve the chunk's bytes in the ``SegmentTable``, write them at the segment's position,
/// count them, and stop at the segment's end.
final class SegmentSink: Sendable {
    /// The segment is complete, or was cut short by another connection: the rest of the body is not its.
    struct Reached: Error {}

    private struct State {
        let writer: PartialFileWriter
        var check: ChunkSink.FirstBytes?
        var gate: AsyncStream<Void>.Continuation?
    }

    private let operation: DownloadOperation
    private let run: SegmentRun
    private let slot: Int
    private let requestedEnd: Int64
    private let digest: FileDigest?
    private let state: Mutex<State>

    /// - Parameters:
    ///   - requestedEnd: the end of the range the body was asked for: a segment that ends before it
    ///     (cut meanwhile, or segment 0 of a whole-file body) stops reading there.
    ///   - check: what a fresh body's first bytes must show (``ChunkSink/FirstBytes``); once they do,
    ///     the partial is emptied and `gate` finished, so the other connections start.
    init(operation: DownloadOperation, run: SegmentRun, slot: Int, writer: sending PartialFileWriter, requestedEnd: Int64,
         check: ChunkSink.FirstBytes?, gate: AsyncStream<Void>.Continuation?) {
        self.operation = operation
        self.run = run
        self.slot = slot
        self.requestedEnd = requestedEnd
        self.digest = operation.currentDigest
        self.state = Mutex(State(writer: writer, check: check, gate: gate))
    }

    /// Closes the writer's stream.
    func close() { state.withLock { $0.writer.close() } }

    func take(_ chunk: inout ByteBuffer) throws {
        let count = chunk.readableBytes
        guard count > 0 else { return }
        let (written, complete) = try state.withLock { (state: inout State) throws -> (Int, Bool) in
            if let gate = state.gate {
                if let check = state.check {
                    state.check = nil
                    try chunk.withUnsafeReadableBytes { bytes throws(DownloadError) in try check.verify(bytes) }
                }
                // A fresh body over an old partial: the old bytes go once the new ones proved to be media.
                try run.file.truncate()
                state.gate = nil
                gate.finish()
            }
            let (offset, allowed) = run.table.reserve(slot, count: count)
            if allowed > 0 {
                let writer = state.writer
                try chunk.withUnsafeReadableBytes { bytes throws(DownloadError) in
                    let mine = UnsafeRawBufferPointer(rebasing: bytes.prefix(allowed))
                    try writer.write(mine)
                    digest?.update(mine, at: offset)
                }
            }
            return (allowed, run.table.wrote(slot, count: allowed))
        }
        if written > 0 { operation.addProgress(written) }
        if written < count || (complete && run.table.segment(slot).end < requestedEnd) { throw Reached() }
    }
}
