/// When a connection's reads wait for a batch of bytes: the decisions of a ``ReadBatcher``, without
/// the socket or the clock (pure, tested on its own).
///
/// Unbatched, the kernel wakes podq for every packet that lands, and with many fast downloads each
/// wake-up reads a few dozen KiB through the whole pipeline (decoder, relay, digest, write). Once a read
/// finds ``fast`` bytes or more waiting, the bytes come faster than podq takes them, and the connection
/// asks the kernel (`SO_RCVLOWAT`) to wake it only once ``batch`` bytes wait, or the connection closed:
/// half the reads and wake-ups for the same bytes (docs/PERFORMANCE.md, "Reads in batches").
///
/// A batch never holds bytes back for long: the clock ticks every ``ReadBatcher/patience`` while
/// batching, and a tick that finds no read since the last one ends the batching, so bytes that came
/// slower than a batch a tick reach the download within two ticks. The next fast read batches again.
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
    /// An unbatched read at least this large starts batching.
    var fast: Int { batch / 2 }
    private(set) var batching = false
    /// A read came since the clock last ticked.
    private var readSinceTick = false

    /// The largest batch: 128 KiB, half of what one of fifty downloads reads at once.
    static let largest = 128 * 1024
    /// Below this a batch saves too little to be worth a system call: such a connection never batches.
    static let smallest = 16 * 1024
    /// A connection batches when it opens with this many others open: then connections compete for
    /// the CPU (fifty at once: 18% less CPU). One download's reads were as large as its window already,
    /// and batching it only cost a megabyte more of read buffers (docs/PERFORMANCE.md).
    static let crowd = 4

    /// Batches of half of `readSize` (what the connection reads at most at once), at most ``largest``;
    /// nil when that is under ``smallest`` and the connection reads byte by byte as it comes.
    init?(readSize: Int) {
        let batch = min(Self.largest, readSize / 2)
        guard batch >= Self.smallest else { return nil }
        self.batch = batch
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

    /// A read of `bytes` came.
    mutating func read(_ bytes: Int) -> Change? {
        readSinceTick = true
        guard !batching, bytes >= fast else { return nil }
        batching = true
        readSinceTick = false
        return .batch(batch)
    }

    /// The clock ticked (only while batching): no read since the last tick ends the batching, so that
    /// bytes fewer than a batch are not held.
    mutating func tick() -> Change? {
        guard batching else { return nil }
        guard readSinceTick else {
            batching = false
            return .unbatch
        }
        readSinceTick = false
        return nil
    }
}
