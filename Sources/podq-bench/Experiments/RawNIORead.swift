import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// `podq-bench raw-read URL FILE [BYTES] [MESSAGES] [COUNT]`: an experiment for issue 17, not a
/// transport of podq's. Downloads a plain-HTTP URL (`COUNT` times at once, each into `FILE`, on two
/// event loops) with bare NIO HTTP/1.1 channels whose receive buffer is `BYTES` (fixed; 0: NIO's
/// adaptive default, up to 64 KiB) and `MESSAGES` reads per wake, writing each body part with
/// write(2) on the event loop as podq's downloads do, then prints the wall time, the CPU and the
/// peak RSS of this process: how much of podq's CPU above curl's is the client stack
/// (async-http-client, which lets no one choose the receive buffer) and how much reading itself.
enum RawNIORead {
    private final class Sink: ChannelInboundHandler {
        typealias InboundIn = HTTPClientResponsePart
        let fd: Int32
        let done: EventLoopPromise<Int64>
        var total: Int64 = 0

        init(fd: Int32, done: EventLoopPromise<Int64>) {
            self.fd = fd
            self.done = done
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                if head.status != .ok { done.fail(BenchError.mismatch("raw-read: HTTP \(head.status.code)")) }
            case .body(let buffer):
                buffer.withUnsafeReadableBytes { bytes in
                    var offset = 0
                    while offset < bytes.count {
                        let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                        if n <= 0 { break }
                        offset += n
                    }
                }
                total += Int64(buffer.readableBytes)
            case .end:
                done.succeed(total)
                context.close(promise: nil)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            done.fail(error)
            context.close(promise: nil)
        }
    }

    static func run(_ args: [String]) async throws {
        guard args.count >= 2, let url = URL(string: args[0]), let host = url.host else {
            throw BenchError.setup("usage: podq-bench raw-read URL FILE [BYTES] [MESSAGES]")
        }
        let bytes = args.count > 2 ? Int(args[2]) ?? 0 : 0
        let messages = args.count > 3 ? UInt(args[3]) ?? 4 : 4
        let count = args.count > 4 ? max(1, Int(args[4]) ?? 1) : 1
        let port = url.port ?? 80
        let group = MultiThreadedEventLoopGroup(numberOfThreads: count > 1 ? 2 : 1)
        let started = Date()
        let total = try await withThrowingTaskGroup(of: Int64.self) { tasks in
            for _ in 0..<count {
                tasks.addTask {
                    let fd = open(args[1], O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
                    guard fd >= 0 else { throw BenchError.setup("raw-read: cannot create \(args[1])") }
                    defer { close(fd) }
                    let done = group.next().makePromise(of: Int64.self)
                    var bootstrap = ClientBootstrap(group: group).channelOption(.maxMessagesPerRead, value: messages)
                    if bytes > 0 { bootstrap = bootstrap.channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: bytes)) }
                    let channel = try await bootstrap.channelInitializer { channel in
                        // On the channel's event loop: the handler never leaves it, so it need not be Sendable.
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHTTPClientHandlers()
                            try channel.pipeline.syncOperations.addHandler(Sink(fd: fd, done: done))
                        }
                    }.connect(host: host, port: port).get()
                    var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: url.path.isEmpty ? "/" : url.path)
                    head.headers.add(name: "Host", value: host)
                    channel.write(HTTPClientRequestPart.head(head), promise: nil)
                    try await channel.writeAndFlush(HTTPClientRequestPart.end(nil))
                    return try await done.futureResult.get()
                }
            }
            return try await tasks.reduce(0, +)
        }
        let wall = Date().timeIntervalSince(started)
        try await group.shutdownGracefully()
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        print(
            String(
                format: "raw-read: %lld bytes in %.2f s (%.0f MB/s), user %.2f s, system %.2f s, peak RSS %.1f MB (buffer %@, %u reads a wake, %d at once)",
                total, wall, Double(total) / wall / 1e6, user, system, Double(usage.ru_maxrss) / 1024,
                bytes > 0 ? "\(bytes) B fixed" : "adaptive ≤ 64 KiB", messages, count))
    }
}
