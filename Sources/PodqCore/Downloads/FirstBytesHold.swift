import NIOCore
import PodqHTTP

/// Holds a fresh body's first bytes until there are enough of them to judge (``needed``), however the
/// server cut them: a first read of one byte, or of `"\u{FEFF}  <"`, tells nothing about a web page
/// or a media file. Once judged (or when the body ends first), everything held goes on in one piece.
struct FirstBytesHold {
    /// Enough for every signature ``ChunkSink/looksLikeMedia(_:)`` knows, and for a web page's marker
    /// after a BOM and a few hundred bytes of white space.
    static let needed = 512

    /// The check still to make; nil once passed (or when there is none).
    private(set) var check: ChunkSink.FirstBytes?
    private var held: ByteBuffer?
    /// Why the first bytes were refused: every later chunk is refused for it too, so no byte after a
    /// refused page's first ones is ever passed on (a client may hand over a chunk it had read already).
    private var refusal: DownloadError?

    init(_ check: ChunkSink.FirstBytes?) {
        self.check = check
    }

    /// True while the check has not been passed.
    var isPending: Bool { check != nil }

    /// `chunk`, or the bytes held so far with it, once they were judged; nil while still held.
    mutating func pass(_ chunk: ByteBuffer) throws(DownloadError) -> ByteBuffer? {
        if let refusal { throw refusal }
        guard let check else { return chunk }
        var all: ByteBuffer
        if var held = held.take() {
            var more = chunk
            held.writeBuffer(&more)
            all = held
        } else {
            all = chunk
        }
        guard all.readableBytes >= Self.needed else {
            held = all
            return nil
        }
        try judge(all, check)
        self.check = nil
        return all
    }

    /// The body ended: what was held, judged on what there is (nil when nothing was).
    mutating func end() throws(DownloadError) -> ByteBuffer? {
        if let refusal { throw refusal }
        guard let check else { return nil }
        guard let all = held.take(), all.readableBytes > 0 else {
            self.check = nil
            return nil
        }
        try judge(all, check)
        self.check = nil
        return all
    }

    /// Verifies `bytes`; a refusal is kept for every later call.
    private mutating func judge(_ bytes: ByteBuffer, _ check: ChunkSink.FirstBytes) throws(DownloadError) {
        do {
            try bytes.withUnsafeReadableBytes { bytes throws(DownloadError) in try check.verify(bytes) }
        } catch {
            refusal = error
            throw error
        }
    }
}
