import NIOCore

/// Counts the bytes of an answer's head on podq's own connections, between the TLS layer (if any)
/// and the HTTP decoder, and refuses a head longer than ``limit``: a 1 MiB header line or a status
/// line that never ends is said at once (``DownloadError/headTooLarge(limit:)``), never waited for.
///
/// The ``ResponseRelay`` tells it when the final head (not a 1xx) was decoded; from then on every
/// byte passes untouched. Bytes read together with the head's end (the body's first bytes) never
/// count against it: the count is looked at only after the decoder had the read.
final class ResponseHeadGuard: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The most bytes a head (the status line, the headers and the interim answers before them) may
    /// have: 64 KiB. Real answers have a few hundred bytes to a few KiB; nginx refuses an upstream
    /// head above 4 or 8 KiB by default, and NIO's decoder refuses a header list above 80 KiB.
    static let limit = 64 * 1024

    private let limit: Int
    private var count = 0
    /// The final head was decoded: nothing more is counted.
    var headDone = false
    private var refused = false

    init(limit: Int = ResponseHeadGuard.limit) {
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !headDone, !refused else {
            if !refused { context.fireChannelRead(data) }
            return
        }
        count += unwrapInboundIn(data).readableBytes
        context.fireChannelRead(data)
        if !headDone && count > limit {
            refused = true
            context.fireErrorCaught(DownloadError.headTooLarge(limit: limit))
        }
    }
}
