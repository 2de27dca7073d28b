/// When a connection's reads wait for a batch of bytes: the decisions of a ``ReadBatcher``, without
/// the socket or the clock (pure, tested on its own).
///
/// Unbatched, the kernel wakes podq for every packet that lands, and with many fast downloads each
/// wake-up reads a few dozen KiB through the whole pipeline (decoder, relay, digest, write). A
/// connection asks the kernel (`SO_RCVLOWAT`) to wake it only once ``batch`` bytes wait, or the
/// connection closed, from the start: half the reads and wake-ups for the same bytes
/// (docs/PERFORMANCE.md, "Lean, fourth step").
///
/// A batch never holds bytes back for long: the clock ticks every `patience` while batching, and a
/// tick that finds no read since the last one ends the batching, so bytes that came slower than a
/// batch a tick reach the download within two ticks. A connection batches again only when a read
/// shows bytes coming fast enough to fill a batch within a tick: the first read after the batching
/// ended holds what waited meanwhile, large whatever the speed, and counts for nothing (a slow
/// connection would batch and end its batch every other tick).
struct ReadBatching: Equatable {
    /// What the socket is to be told.
    enum Change: Equatable {
        /// Wake on `batch` bytes waiting (or the end).
        case batch(Int)
        /// Wake on any byte, as a socket does by default.
        case unbatch
    }

    /// The bytes a batched read waits for.
    let batch: Int
    /// The clock's tick, in nanoseconds.
    let patience: UInt64
    /// An unbatched read at least this large starts batching.
    var fast: Int { batch / 2 }
    private(set) var batching = false
    /// A read came since the clock last ticked.
    private var readSinceTick = false
    /// When the last read came (nanoseconds), or when the batching ended: the start of the next
    /// read's interval.
    private var lastRead: UInt64?

    /// The largest batch: 128 KiB, half of what one of fifty downloads reads at once.
    static let largest = 128 * 1024
    /// Below this a batch saves too little to be worth a system call: such a connection never batches.
    static let smallest = 16 * 1024
    /// A connection batches when it opens with this many others open: then connections compete for
    /// the CPU (fifty at once: 18% less CPU). One download's reads were as large as its window already,
    /// and batching it only cost a megabyte more of read buffers (docs/PERFORMANCE.md).
    static let crowd = 4

    /// Batches of half of `readSize` (what the connection reads at most at once), at most ``largest``,
    /// with the clock ticking every `patience` nanoseconds; nil when the batch is under ``smallest``
    /// and the connection reads byte by byte as it comes.
    init?(readSize: Int, patience: UInt64) {
        let batch = min(Self.largest, readSize / 2)
        guard batch >= Self.smallest, patience > 0 else { return nil }
        self.batch = batch
        self.patience = patience
    }

    /// The connection is open: it batches from the start, before the window grows, when the kernel can
    /// still size the socket's buffer for a batch (asked later, Linux 6 left the buffer, and the
    /// window, as they were: reads stayed at 93 KiB under a 128 KiB batch).
    mutating func opened() -> Change? {
        guard !batching else { return nil }
        batching = true
        readSinceTick = false
        return .batch(batch)
    }

    /// A read of `bytes` came at `now` (nanoseconds, monotonic). Not batching, it batches again when
    /// the read is ``fast`` bytes or more and came quickly enough that a batch fills within a tick.
    mutating func read(_ bytes: Int, at now: UInt64) -> Change? {
        readSinceTick = true
        defer { lastRead = now }
        guard !batching, bytes >= fast, let last = lastRead else { return nil }
        // bytes / elapsed >= batch / patience, in integers (a read within the same nanosecond counts).
        let elapsed = now >= last ? now - last : 0
        guard UInt64(bytes).multipliedFullWidth(by: patience) >= UInt64(batch).multipliedFullWidth(by: elapsed) else { return nil }
        batching = true
        readSinceTick = false
        return .batch(batch)
    }

    /// The clock ticked at `now` (only while batching): no read since the last tick ends the batching,
    /// so that bytes fewer than a batch are not held.
    mutating func tick(at now: UInt64) -> Change? {
        guard batching else { return nil }
        guard readSinceTick else {
            batching = false
            lastRead = now
            return .unbatch
        }
        readSinceTick = false
        return nil
    }
}
