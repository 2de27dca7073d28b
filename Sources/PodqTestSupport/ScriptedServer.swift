import NIOCore
import NIOPosix
import PodqServer
import Synchronization

/// A raw TCP server on 127.0.0.1 that answers each connection's first read with a script of raw
/// bytes: pieces written one at a time, each after its own pause, then the connection closed or left
/// open. What no HTTP server library sends: a head cut at any byte, a head that trickles in, a header
/// line of a megabyte, a body in one-byte writes.
public final class ScriptedServer: Sendable {
    /// One write.
    public struct Piece: Sendable {
        public var bytes: [UInt8]
        /// The pause before it.
        public var pause: TimeAmount

        public init(_ bytes: [UInt8], after pause: TimeAmount = .zero) {
            self.bytes = bytes
            self.pause = pause
        }
    }

    /// What a connection is answered with.
    public struct Script: Sendable {
        public var pieces: [Piece]
        /// Close the connection after the last piece (else it stays open until the client closes it).
        public var closeAfter: Bool

        public init(_ pieces: [Piece], closeAfter: Bool = false) {
            self.pieces = pieces
            self.closeAfter = closeAfter
        }

        /// `response` cut at `cuts` (offsets into it, ascending), with `pause` before every piece but the first.
        public static func cut(_ response: [UInt8], at cuts: [Int], pause: TimeAmount = .zero, closeAfter: Bool = false) -> Script {
            var pieces: [Piece] = []
            var from = 0
            for cut in cuts + [response.count] where cut > from && cut <= response.count {
                pieces.append(Piece(Array(response[from..<cut]), after: from == 0 ? .zero : pause))
                from = cut
            }
            return Script(pieces, closeAfter: closeAfter)
        }

        /// `response` cut at random places by `random`: one-byte pieces among them, pauses of up to
        /// `maxPause` milliseconds.
        public static func random(_ response: [UInt8], using random: inout SeededGenerator, maxPause: Int = 5, closeAfter: Bool) -> Script {
            var pieces: [Piece] = []
            var from = 0
            while from < response.count {
                let left = response.count - from
                let size =
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0: 1
                    case 1: Int.random(in: 1...min(left, 16), using: &random)
                    default: Int.random(in: 1...left, using: &random)
                    }
                let pause = Int.random(in: 0..<3, using: &random) == 0 ? Int.random(in: 0...maxPause, using: &random) : 0
                pieces.append(Piece(Array(response[from..<from + min(size, left)]), after: .milliseconds(Int64(pause))))
                from += min(size, left)
            }
            return Script(pieces, closeAfter: closeAfter)
        }
    }

    public let port: Int
    private let channel: any Channel

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
    }

    /// Starts a server that answers the n-th connection (from 0) with `script(n)`.
    public static func start(_ script: @escaping @Sendable (Int) -> Script) async throws -> ScriptedServer {
        let counter = Atomic<Int>(0)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    let number = counter.wrappingAdd(1, ordering: .relaxed).oldValue
                    try child.pipeline.syncOperations.addHandler(Player(script: script(number)))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return ScriptedServer(port: channel.localAddress?.port ?? 0, channel: channel)
    }

    /// Starts a server that answers every connection with `script`.
    public static func start(_ script: Script) async throws -> ScriptedServer {
        try await start { _ in script }
    }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String = "/episode.mp3") -> String { "http://127.0.0.1:\(port)\(path)" }

    public func stop() async {
        try? await channel.close()
    }

    private final class Player: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let script: Script
        var started = false

        init(script: Script) { self.script = script }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !started else { return }
            started = true
            play(0, context: context)
        }

        /// Writes the pieces from `index` on: those without a pause at once, one write each; at a pause,
        /// goes on later.
        private func play(_ index: Int, context: ChannelHandlerContext) {
            var index = index
            while index < script.pieces.count {
                guard context.channel.isActive else { return }
                let piece = script.pieces[index]
                if piece.pause > .zero {
                    let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                    let at = index
                    context.eventLoop.scheduleTask(in: piece.pause) { bound.value.0.write(at, context: bound.value.1) }
                    return
                }
                write(piece, context: context)
                index += 1
            }
            if script.closeAfter { context.close(promise: nil) }
        }

        /// Writes piece `index` after its pause, then the rest.
        private func write(_ index: Int, context: ChannelHandlerContext) {
            guard context.channel.isActive else { return }
            write(script.pieces[index], context: context)
            play(index + 1, context: context)
        }

        private func write(_ piece: Piece, context: ChannelHandlerContext) {
            var buffer = context.channel.allocator.buffer(capacity: piece.bytes.count)
            buffer.writeBytes(piece.bytes)
            context.writeAndFlush(NIOAny(buffer), promise: nil)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
