import Crypto
import Foundation
import NIOCore
import PodqServer
import Synchronization

/// Deterministic pseudo-random bytes of any length, addressable by offset, so a test server can send
/// a 1 GiB file (or any range of it) without storing it, and a test can compute its SHA-256.
///
/// The bytes repeat with a prime period (1,048,573), so a byte written at the wrong offset changes
/// the hash whatever the chunk sizes.
public struct PatternSource: ServerBodySource {
    /// The period of the pattern.
    public static let period = 1_048_573

    public let seed: UInt64
    public let length: Int64
    private let table: Table

    public init(seed: UInt64, length: Int64) {
        self.seed = seed
        self.length = length
        self.table = Table.for(seed: seed)
    }

    public func write(into buffer: inout ByteBuffer, offset: Int64, count: Int) {
        var offset = Int(offset % Int64(Self.period))
        var remaining = count
        table.bytes.withUnsafeBytes { raw in
            while remaining > 0 {
                let n = min(remaining, Self.period - offset)
                buffer.writeBytes(UnsafeRawBufferPointer(rebasing: raw[offset..<offset + n]))
                remaining -= n
                offset = 0
            }
        }
    }

    /// The bytes from `offset`, `count` of them.
    public func bytes(offset: Int64 = 0, count: Int) -> [UInt8] {
        var buffer = ByteBuffer()
        write(into: &buffer, offset: offset, count: count)
        return buffer.readBytes(length: buffer.readableBytes) ?? []
    }

    /// The digest of the bytes by `hash` (SHA256, Insecure.MD5…).
    public func digest<H: HashFunction>(using hash: H.Type) -> [UInt8] {
        var hasher = H()
        var done: Int64 = 0
        table.bytes.withUnsafeBytes { raw in
            while done < length {
                let n = Int(min(Int64(Self.period), length - done))
                hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: raw[0..<n]))
                done += Int64(n)
            }
        }
        return Array(hasher.finalize())
    }

    /// The SHA-256 of the first `length` bytes, in lowercase hex.
    public var sha256: String {
        digest(using: SHA256.self).map { String(format: "%02x", $0) }.joined()
    }

    /// One table per seed, shared.
    final class Table: Sendable {
        let bytes: [UInt8]
        private static let cache = Mutex<[UInt64: Table]>([:])

        private init(seed: UInt64) {
            var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
            var bytes = [UInt8](repeating: 0, count: PatternSource.period)
            for i in 0..<bytes.count {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                bytes[i] = UInt8(truncatingIfNeeded: state >> 32)
            }
            self.bytes = bytes
        }

        static func `for`(seed: UInt64) -> Table {
            cache.withLock { cache in
                if let table = cache[seed] { return table }
                let table = Table(seed: seed)
                cache[seed] = table
                return table
            }
        }
    }
}

/// SHA-256 of files, streamed.
public enum FileHash {
    /// The SHA-256 of the file at `path` in lowercase hex, or nil when it cannot be read.
    public static func sha256(path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let data = try? handle.read(upToCount: 1 << 20), !data.isEmpty {
            hasher.update(data: data)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
