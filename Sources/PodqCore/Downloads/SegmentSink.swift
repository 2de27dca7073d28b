import FoundationEssentials
import Glibc
import NIOCore
import PodqHTTP
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
        var check: FirstBytesHold
        var gate: AsyncStream<Void>.Continuation?
        /// The body's first bytes, before the segment's position: kept to compare, not written.
        var lead: [UInt8] = []
        var leadLeft: Int
        /// What the first chunk to fail threw: every later chunk (one the client had read already) and
        /// the end throw it too, and write nothing.
        var failure: (any Error)?
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
    ///   - lead: how many of the body's first bytes lie before the segment's position (its lead): they
    ///     are handed to ``SegmentRun/addLead(_:at:)``, which compares them with the file.
    init(
        operation: DownloadOperation, run: SegmentRun, slot: Int, writer: sending PartialFileWriter, requestedEnd: Int64,
        lead: Int, check: ChunkSink.FirstBytes?, gate: AsyncStream<Void>.Continuation?
    ) {
        self.operation = operation
        self.run = run
        self.slot = slot
        self.requestedEnd = requestedEnd
        self.digest = operation.currentDigest
        self.state = Mutex(State(writer: writer, check: FirstBytesHold(check), gate: gate, leadLeft: lead))
    }

    /// Closes the writer's stream.
    func close() { state.withLock { $0.writer.close() } }

    func take(_ chunk: inout ByteBuffer) throws {
        guard chunk.readableBytes > 0 else { return }
        let (count, written, complete) = try state.withLock { (state: inout State) throws -> (Int, Int, Bool) in
            if let failure = state.failure { throw failure }
            do {
                return try take(&chunk, into: &state)
            } catch {
                state.failure = error
                throw error
            }
        }
        if written > 0 { operation.addProgress(written) }
        if written < count || (complete && run.table.segment(slot).end < requestedEnd) { throw Reached() }
    }

    private func take(_ chunk: inout ByteBuffer, into state: inout State) throws -> (Int, Int, Bool) {
        if state.leadLeft > 0 {
            let n = min(state.leadLeft, chunk.readableBytes)
            state.lead += chunk.readBytes(length: n)!
            state.leadLeft -= n
            if state.leadLeft == 0 {
                let lead = state.lead
                state.lead = []
                try run.addLead(lead, at: run.table.segment(slot).position - Int64(lead.count))
            }
            if chunk.readableBytes == 0 { return (0, 0, false) }
        }
        guard let bytes = try open(&state, with: chunk) else { return (0, 0, false) }
        let (written, complete) = try write(bytes, &state)
        return (bytes.readableBytes, written, complete)
    }

    /// The body ended: the first bytes still held (a body shorter than ``FirstBytesHold/needed``) are
    /// judged and written.
    func finish() throws {
        let written = try state.withLock { (state: inout State) throws -> Int in
            if let failure = state.failure { throw failure }
            guard state.gate != nil, let held = try state.check.end() else { return 0 }
            guard let bytes = try open(&state, with: held) else { return 0 }
            return try write(bytes, &state).written
        }
        if written > 0 { operation.addProgress(written) }
    }

    /// A fresh body's first bytes, once there are enough of them and they passed: the old partial is
    /// emptied and the other connections may start. Nil while they are held.
    private func open(_ state: inout State, with chunk: ByteBuffer) throws -> ByteBuffer? {
        guard let gate = state.gate else { return chunk }
        let bytes: ByteBuffer
        if state.check.isPending {
            guard let judged = try state.check.pass(chunk) else { return nil }
            bytes = judged
        } else {
            bytes = chunk
        }
        // A fresh body over an old partial: the old bytes go once the new ones proved to be media.
        try run.file.truncate()
        state.gate = nil
        gate.finish()
        return bytes
    }

    /// Writes what of `bytes` belongs to the segment at its position; returns how many bytes that was
    /// and whether the segment is complete.
    private func write(_ bytes: ByteBuffer, _ state: inout State) throws -> (written: Int, complete: Bool) {
        let (offset, allowed) = run.table.reserve(slot, count: bytes.readableBytes)
        if allowed > 0 {
            let writer = state.writer
            try bytes.withUnsafeReadableBytes { bytes throws(DownloadError) in
                let mine = UnsafeRawBufferPointer(rebasing: bytes.prefix(allowed))
                try writer.write(mine)
                digest?.update(mine, at: offset)
            }
        }
        return (allowed, run.table.wrote(slot, count: allowed))
    }
}
