import FoundationEssentials
import Glibc
import NIOCore
import Synchronization

/// How a server cuts what it writes: every buffer (a response's head, each piece of its body, a chunk
/// header) goes out in pieces cut at random byte boundaries, one-byte pieces among them, each written
/// and flushed on its own with small random pauses between them, as heads and bodies arrive on the
/// real internet (large cookies, CDNs, proxies). Seeded: the same seed cuts the same buffers of the
/// same connection at the same places.
public struct Segmenting: Sendable, Equatable {
    /// The seed of the cuts; each connection draws from its own generator seeded with it and its number.
    public var seed: UInt64
    /// The longest pause between two pieces of a head-sized buffer (under 1 KiB), in milliseconds.
    public var headPauseMilliseconds: Int
    /// The longest pause between two pieces of a larger buffer (a body's), in milliseconds.
    public var bodyPauseMilliseconds: Int
    /// The share of connections that stay open after a response that said `Connection: close` was
    /// asked for (a server that ignores it): 0 to 1.
    public var keepOpenShare: Double

    public init(seed: UInt64, headPauseMilliseconds: Int = 12, bodyPauseMilliseconds: Int = 2, keepOpenShare: Double = 0.5) {
        self.seed = seed
        self.headPauseMilliseconds = headPauseMilliseconds
        self.bodyPauseMilliseconds = bodyPauseMilliseconds
        self.keepOpenShare = keepOpenShare
    }

    /// The mode the environment asks for: `PODQ_TEST_SEGMENTING=<seed>` (any other word: a seed from
    /// the clock, printed so that a failure can be run again with it); nil when unset or empty.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Segmenting? {
        guard let value = environment["PODQ_TEST_SEGMENTING"], !value.isEmpty, value != "0" else { return nil }
        if let seed = UInt64(value) { return Segmenting(seed: seed) }
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        let notice = "PodqServer: PODQ_TEST_SEGMENTING=\(seed) (every response cut at random byte boundaries)\n"
        _ = notice.withCString { Glibc.write(2, $0, strlen($0)) }
        return Segmenting(seed: seed)
    }
}

/// SplitMix64: a small seeded generator, the same on every machine.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The bytes a ``SegmentingHandler`` holds, not yet written: the channel's own writability does not
/// see them, so the server's writer waits on this (``Connection``) instead of filling memory.
final class SegmentingBacklog: Sendable {
    let bytes = Atomic<Int>(0)
    /// The most a writer lets wait here before it pauses.
    static let limit = 256 * 1024
}

/// The outbound handler of ``Segmenting``, next to the socket (or to the TLS layer, so that each piece
/// is a record of its own): pieces leave in order, one write and flush each, and a close waits for
/// the last of them.
final class SegmentingHandler: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private struct Piece {
        var bytes: ByteBuffer
        var promise: EventLoopPromise<Void>?
        var pause: Int
    }

    private let mode: Segmenting
    private var random: SeededGenerator
    /// Cut and not yet written; the first `flushed` may go.
    private var pieces: [Piece] = []
    private var flushed = 0
    private var sending = false
    private var closing: (mode: CloseMode, promise: EventLoopPromise<Void>?)?

    let backlog = SegmentingBacklog()

    init(_ mode: Segmenting, connection: Int) {
        self.mode = mode
        self.random = SeededGenerator(seed: mode.seed &+ UInt64(connection) &* 0x1000_0000_01B3)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var buffer = unwrapOutboundIn(data)
        backlog.bytes.add(buffer.readableBytes, ordering: .relaxed)
        guard buffer.readableBytes > 0 else {
            pieces.append(Piece(bytes: buffer, promise: promise, pause: 0))
            return
        }
        let small = buffer.readableBytes < 1024
        let most = small ? mode.headPauseMilliseconds : mode.bodyPauseMilliseconds
        // A head is cut in up to 6 places, a body piece in up to 3; a one-byte piece first, often.
        let cuts = Int.random(in: small ? 1...6 : 0...3, using: &random)
        var sizes: [Int] = []
        var left = buffer.readableBytes
        if left > 1, Bool.random(using: &random) {
            sizes.append(1)
            left -= 1
        }
        for _ in 0..<cuts where left > 1 {
            let size = Int.random(in: 1..<left, using: &random)
            sizes.append(size)
            left -= size
        }
        sizes.append(left)
        for (index, size) in sizes.enumerated() where size > 0 {
            let bytes = buffer.readSlice(length: size)!
            let pause = small || Int.random(in: 0..<5, using: &random) == 0 ? Int.random(in: 0...most, using: &random) : 0
            pieces.append(Piece(bytes: bytes, promise: index == sizes.count - 1 ? promise : nil, pause: pause))
        }
    }

    func flush(context: ChannelHandlerContext) {
        flushed = pieces.count
        send(context)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        // What was written before the close goes first, flushed or not.
        flushed = pieces.count
        if pieces.isEmpty && !sending {
            context.close(mode: mode, promise: promise)
        } else {
            closing = (mode, promise)
            send(context)
        }
    }

    /// Writes the flushed pieces one by one, pausing where a piece says.
    private func send(_ context: ChannelHandlerContext) {
        guard !sending else { return }
        while flushed > 0 {
            let piece = pieces.removeFirst()
            flushed -= 1
            if piece.pause > 0 {
                sending = true
                let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: .milliseconds(Int64(piece.pause))) {
                    let (handler, context) = bound.value
                    handler.sending = false
                    handler.backlog.bytes.subtract(piece.bytes.readableBytes, ordering: .relaxed)
                    context.writeAndFlush(handler.wrapOutboundOut(piece.bytes), promise: piece.promise)
                    handler.send(context)
                }
                return
            }
            backlog.bytes.subtract(piece.bytes.readableBytes, ordering: .relaxed)
            context.writeAndFlush(wrapOutboundOut(piece.bytes), promise: piece.promise)
        }
        if pieces.isEmpty, let closing {
            self.closing = nil
            context.close(mode: closing.mode, promise: closing.promise)
        }
    }
}
