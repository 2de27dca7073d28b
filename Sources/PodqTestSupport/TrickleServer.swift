import NIOCore
import NIOPosix

/// A raw TCP server on 127.0.0.1 that answers every request by writing `response` one byte at a time,
/// `interval` apart: a server whose headers trickle in (each byte resets an idle timer, so only a
/// deadline for the whole head can catch it). HTTP servers built on NIOHTTP1 cannot write a head in
/// pieces, hence bytes.
public final class TrickleServer: Sendable {
    public let port: Int
    private let channel: any Channel

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
    }

    public static func start(response: [UInt8], interval: TimeAmount) async throws -> TrickleServer {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(Trickle(response: response, interval: interval))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return TrickleServer(port: channel.localAddress?.port ?? 0, channel: channel)
    }

    public func stop() async {
        try? await channel.close()
    }

    private final class Trickle: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let response: [UInt8]
        let interval: TimeAmount
        var started = false

        init(response: [UInt8], interval: TimeAmount) {
            self.response = response
            self.interval = interval
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !started else { return }
            started = true
            send(0, context: context)
        }

        private func send(_ index: Int, context: ChannelHandlerContext) {
            guard index < response.count, context.channel.isActive else { return }
            var buffer = context.channel.allocator.buffer(capacity: 1)
            buffer.writeInteger(response[index])
            context.writeAndFlush(NIOAny(buffer), promise: nil)
            // The handler and its context stay on their event loop; NIOLoopBound checks it.
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: interval) { bound.value.0.send(index + 1, context: bound.value.1) }
        }
    }
}
