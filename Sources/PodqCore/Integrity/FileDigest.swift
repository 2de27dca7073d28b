import PodqHTTP
import Synchronization

/// The digests of one pass of a download, computed as its bytes are written: no second pass over
/// the file. Bytes written where the hashed prefix ends are hashed at once; anything else (a
/// resumed partial's prefix, the later segments of a segmented download) is read back from the
/// partial once, when the prefix reaches it (``catchUp(_:to:)``, ``finish(_:length:)``).
///
/// Writers on several network threads (one per segment) call ``update(_:at:)``: only the one writing
/// at the prefix's end hashes, the others see at once, without the lock, that it is not them.
final class FileDigest: Sendable {
    let algorithms: [DigestAlgorithm]
    /// Bytes hashed so far, from byte 0 on.
    private let position = Atomic<Int64>(0)
    private let digesters: Mutex<[Digester]>

    /// Computes those of `algorithms` that are available (``DigestAlgorithm/isAvailable``).
    init(algorithms: some Sequence<DigestAlgorithm>) {
        let digesters = Array(Set(algorithms)).sorted().compactMap(Digester.init)
        self.algorithms = digesters.map(\.algorithm)
        self.digesters = Mutex(digesters)
    }

    /// Bytes hashed so far.
    var hashed: Int64 { position.load(ordering: .acquiring) }

    /// Hashes `bytes`, just written at `offset`, when they continue the hashed prefix.
    func update(_ bytes: UnsafeRawBufferPointer, at offset: Int64) {
        guard bytes.count > 0, position.load(ordering: .acquiring) == offset else { return }
        // The bytes go into the lock as an address and a count: the C side only reads them during the
        // call, and the region checker then does not tie the digesters to the caller's buffer.
        let address = UInt(bitPattern: bytes.baseAddress), count = bytes.count
        digesters.withLock { digesters in
            guard position.load(ordering: .relaxed) == offset else { return }
            let block = UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: address), count: count)
            for digester in digesters { digester.update(block) }
            position.store(offset + Int64(count), ordering: .releasing)
        }
    }

    /// Reads the partial from the hashed prefix's end up to `end`, hashing it: a resumed partial's
    /// prefix, once, before the body continues it.
    func catchUp(_ file: PartialFile, to end: Int64) throws(DownloadError) {
        try digesters.withLock { (digesters: inout [Digester]) throws(DownloadError) in
            let start = position.load(ordering: .relaxed)
            guard end > start else { return }
            try file.readBlocks(from: start, to: end) { block in
                for digester in digesters { digester.update(block) }
            }
            position.store(end, ordering: .releasing)
        }
    }

    /// The digests of the file's `length` bytes, reading what was not hashed as it was written.
    func finish(_ file: PartialFile, length: Int64) throws(DownloadError) -> FileDigests {
        try catchUp(file, to: length)
        return digesters.withLock { digesters in
            FileDigests(values: Dictionary(uniqueKeysWithValues: digesters.map { ($0.algorithm, $0.finish()) }))
        }
    }
}

/// The digests of a whole file, by algorithm.
public struct FileDigests: Sendable, Equatable {
    public var values: [DigestAlgorithm: [UInt8]]

    public init(values: [DigestAlgorithm: [UInt8]]) { self.values = values }

    /// The stored form of the digest by `algorithm` (`xxh3:<hex>`), when it was computed.
    public func stored(_ algorithm: DigestAlgorithm) -> String? {
        values[algorithm].map { "\(algorithm.name):\($0.hex)" }
    }
}
