import FoundationEssentials
import Glibc
import NIOCore
import PodqHTTP
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
        /// What the body's first bytes must show, and those bytes until there are enough to look at.
        var firstBytes: FirstBytesHold
        /// A file to empty once the first bytes passed (a fresh body over an old partial): a web page
        /// refused at its first bytes leaves the partial as it was.
        var emptyFirst: PartialFile?
        /// What the first chunk to fail threw: every later chunk (one the client had read already) and
        /// the end throw it too, and write nothing.
        var failure: (any Error)?
    }

    private let operation: DownloadOperation
    private let expected: Int64?
    private let digest: FileDigest?
    private let state: Mutex<State>

    init(
        operation: DownloadOperation, writer: sending PartialFileWriter, expected: Int64?, overlapTail: [UInt8], written: Int64,
        firstBytes: FirstBytes? = nil, emptyFirst: PartialFile? = nil
    ) {
        self.operation = operation
        self.expected = expected
        self.digest = operation.currentDigest
        self.state = Mutex(
            State(
                writer: writer, toCompare: overlapTail, written: written, firstBytes: FirstBytesHold(firstBytes),
                emptyFirst: emptyFirst))
    }

    /// What the first bytes of a body must show: the sniffing that tells a web page (a login page, a
    /// paywall, a CDN's error page sent with 200) from the media file it stands in for.
    enum FirstBytes: Sendable {
        /// Labelled `text/html`: refused unless they are a media file's (a PHP script that forgot its
        /// `Content-Type` sends an MP3 as `text/html`).
        case mustBeMedia(url: String)
        /// Labelled as nothing in particular (`application/octet-stream`, none): refused when they
        /// are an HTML document's.
        case mustNotBeWebPage(url: String)

        func verify(_ bytes: UnsafeRawBufferPointer) throws(DownloadError) {
            switch self {
            case .mustBeMedia(let url): if !ChunkSink.looksLikeMedia(bytes) { throw .webPage(url: url) }
            case .mustNotBeWebPage(let url): if ChunkSink.looksLikeWebPage(bytes) { throw .webPage(url: url) }
            }
        }
    }

    /// True when `bytes` start as an audio or video file does: ID3, an MPEG or ADTS frame, MP4/M4A,
    /// Ogg, FLAC, WAV, Matroska/WebM, ASF.
    static func looksLikeMedia(_ bytes: UnsafeRawBufferPointer) -> Bool {
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + signature.count && (0..<signature.count).allSatisfy { bytes[offset + $0] == signature[$0] }
        }
        if bytes.count >= 2 && bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0 { return true }
        return starts(Array("ID3".utf8)) || starts(Array("ftyp".utf8), at: 4) || starts(Array("OggS".utf8)) || starts(Array("fLaC".utf8))
            || starts(Array("RIFF".utf8)) || starts([0x1A, 0x45, 0xDF, 0xA3]) || starts([0x30, 0x26, 0xB2, 0x75])
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

    /// The body ended: writes the first bytes still held (a body shorter than
    /// ``FirstBytesHold/needed``) once they passed, and empties the file if no chunk did (an empty body
    /// over an old partial).
    func finish() throws {
        let count = try state.withLock { (state: inout State) throws -> Int in
            if let failure = state.failure { throw failure }
            if let held = try state.firstBytes.end() { return try Self.write(held, into: &state, expected: expected, digest: digest) }
            if let file = state.emptyFirst {
                state.emptyFirst = nil
                try file.truncate()
            }
            return 0
        }
        if count > 0 { operation.addProgress(count) }
    }

    /// Closes the writer's stream.
    func close() { state.withLock { $0.writer.close() } }

    func take(_ chunk: inout ByteBuffer) throws {
        let count: Int = try state.withLock { (state: inout State) throws -> Int in
            if let failure = state.failure { throw failure }
            do {
                return try take(&chunk, into: &state)
            } catch {
                state.failure = error
                throw error
            }
        }
        if count > 0 { operation.addProgress(count) }
    }

    private func take(_ chunk: inout ByteBuffer, into state: inout State) throws -> Int {
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
        guard let bytes = try state.firstBytes.pass(chunk) else { return 0 }
        return try Self.write(bytes, into: &state, expected: expected, digest: digest)
    }

    /// Writes `bytes` at the end of the file: the first write empties an old partial first.
    private static func write(_ bytes: ByteBuffer, into state: inout State, expected: Int64?, digest: FileDigest?) throws -> Int {
        if let file = state.emptyFirst {
            state.emptyFirst = nil
            try file.truncate()
        }
        let count = bytes.readableBytes
        if let expected, state.written + Int64(count) > expected {
            throw DownloadError.bodyTooLong(expected: expected)
        }
        let writer = state.writer
        let offset = state.written
        try bytes.withUnsafeReadableBytes { bytes throws(DownloadError) in
            try writer.write(bytes)
            digest?.update(bytes, at: offset)
        }
        state.written += Int64(count)
        return count
    }
}
