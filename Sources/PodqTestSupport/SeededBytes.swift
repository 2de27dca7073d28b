import PodqServer

/// Numbers and bytes from a seed (``SeededGenerator``, SplitMix64): the same on every run and machine,
/// so a generated input that fails can be replayed.
public struct SeededBytes {
    private var generator: SeededGenerator

    public init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    public mutating func next() -> UInt64 { generator.next() }

    /// `count` bytes.
    public mutating func bytes(count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) } }
}
