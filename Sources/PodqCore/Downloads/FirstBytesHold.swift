import NIOCore
import PodqHTTP

/// Holds a fresh body's first bytes until there are enough of them to judge (``needed``), however the
/// server cut them: a first read of one byte, or of `"\u{FEFF}  <"`, tells nothing about a web page
/// or a media file. Once judged (or when the body ends first), everything held goes on in one piece.
struct FirstBytesHold {
    /// Enough for every signature ``ChunkSink/looksLikeMedia(_:)`` knows, and for a web page's marker
    /// after a BOM and a few hundred bytes of white space.
    static let needed = 512

    /// The check still to make; nil once made (or when there is none).
    private(set) var check: ChunkSink.FirstBytes?
    private var held: ByteBuffer?

    init(_ check: ChunkSink.FirstBytes?) {
        self.check = check
    }

    /// True while the check has not been made.
    var isPending: Bool { check != nil }

    /// `chunk`, or the bytes held so far with it, once they were judged; nil while still held.
    mutating func pass(_ chunk: ByteBuffer) throws(DownloadError) -> ByteBuffer? {
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
        self.check = nil
        try all.withUnsafeReadableBytes { bytes throws(DownloadError) in try check.verify(bytes) }
        return all
    }

    /// The body ended: what was held, judged on what there is (nil when nothing was).
    mutating func end() throws(DownloadError) -> ByteBuffer? {
        guard let check = check.take() else { return nil }
        guard let all = held.take(), all.readableBytes > 0 else { return nil }
        try all.withUnsafeReadableBytes { bytes throws(DownloadError) in try check.verify(bytes) }
        return all
    }
}
