import NIOCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Reads in batches on one of podq's own connections once its bytes come faster than podq takes them
/// (``ReadBatching``): first in the pipeline, it sees each read from the socket as it came, tells the
/// socket `SO_RCVLOWAT`, and ticks a clock while batching so that no byte waits long.
///
/// Only on a connection without a speed limit (a paced connection reads small on purpose) and with a
/// read size that makes batching worth it; a socket that refuses the option reads as before.
final class ReadBatcher: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// How often the clock ticks while batching, in nanoseconds: bytes that came slower than a batch a
    /// tick wait at most two ticks. 100 ms, or an eighth of the stall limit when that is shorter, so that
    /// a batch never makes a flowing download look stalled.
    static func patience(stall: Double?) -> UInt64 {
        UInt64(min(0.1, (stall ?? 1) / 8) * 1e9)
    }

    /// How many times a socket was told to batch, in this process: what tests read to know batching
    /// took place (the socket's own option is back to 1 once a test looks).
    static let batches = Atomic<Int>(0)

    private var state: ReadBatching
    private var clock: RepeatedTask?

    init(state: ReadBatching) {
        self.state = state
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let change = state.read(unwrapInboundIn(data).readableBytes, at: NIODeadline.now().uptimeNanoseconds) { apply(change, context) }
        context.fireChannelRead(data)
    }

    func channelActive(context: ChannelHandlerContext) {
        if let change = state.opened() { apply(change, context) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopClock()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stopClock()
    }

    private func apply(_ change: ReadBatching.Change, _ context: ChannelHandlerContext) {
        switch change {
        case .batch(let bytes):
            guard set(lowWater: bytes, context) else { return }
            Self.batches.add(1, ordering: .relaxed)
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let patience = TimeAmount.nanoseconds(Int64(state.patience))
            clock = context.eventLoop.scheduleRepeatedTask(initialDelay: patience, delay: patience) { _ in
                let (batcher, context) = bound.value
                if let change = batcher.state.tick(at: NIODeadline.now().uptimeNanoseconds) { batcher.apply(change, context) }
            }
        case .unbatch:
            stopClock()
            _ = set(lowWater: 1, context)
        }
    }

    /// Tells the socket how many bytes wait before it wakes podq; false when it refused (not a TCP
    /// socket of this kernel), and then the connection reads as before.
    private func set(lowWater bytes: Int, _ context: ChannelHandlerContext) -> Bool {
        let option = ChannelOptions.Types.SocketOption(level: .socket, name: .init(rawValue: SO_RCVLOWAT))
        guard let options = context.channel.syncOptions else { return false }
        do {
            try options.setOption(option, value: bytes)
            return true
        } catch {
            return false
        }
    }

    private func stopClock() {
        clock?.cancel()
        clock = nil
    }
}
