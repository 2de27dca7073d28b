import Crypto
import NIOCore
import PodqServer

/// A ``PatternSource`` with `slots` runs of 16 bytes, spread over the file away from any half, quarter
/// or eighth of it, filled with `fill`: a host that inserts an ad of the same length per request, under
/// one ETag (issue 43). Request `n` of a URL fills them with `n`; nothing else differs.
public struct SlottedSource: ServerBodySource {
    public let base: PatternSource
    public let fill: UInt8
    /// Where each slot starts.
    public let starts: [Int64]
    public static let slotLength: Int64 = 16

    public var length: Int64 { base.length }

    public init(seed: UInt64, length: Int64, slots: Int, fill: UInt8) {
        base = PatternSource(seed: seed, length: length)
        self.fill = fill
        // (2k + 1) / (2 × slots) of the file, plus an odd offset: inside what any split makes a segment.
        starts = (0..<slots).map { k in min(length - Self.slotLength, length * Int64(2 * k + 1) / Int64(2 * slots) + 12_345) }
    }

    public func write(into buffer: inout ByteBuffer, offset: Int64, count: Int) {
        let from = buffer.writerIndex
        base.write(into: &buffer, offset: offset, count: count)
        let end = offset + Int64(count)
        for start in starts where start < end && start + Self.slotLength > offset {
            for position in max(start, offset)..<min(start + Self.slotLength, end) {
                buffer.setInteger(fill, at: from + Int(position - offset))
            }
        }
    }

    /// The whole file as request `fill` served it.
    public func bytes() -> [UInt8] {
        var buffer = ByteBuffer()
        write(into: &buffer, offset: 0, count: Int(length))
        return buffer.readBytes(length: buffer.readableBytes) ?? []
    }

    /// The SHA-256 of the whole file as request `fill` served it.
    public var sha256: [UInt8] { Routes.digest(self, SHA256.self) }
}
