import FoundationEssentials
import Glibc
import PodqHTTP

/// Reads a range of an open file in 1 MiB blocks with `pread` (the descriptor's position is left
/// alone): the hashing of a partial's resumed prefix, of segments written out of order, and of a
/// committed file by `podq verify`.
enum BlockReader {
    static let blockSize = 1 << 20

    /// Hands `body` every block of `[start, end)`; stops early when `body` returns false. Throws when
    /// the file is shorter than `end` or cannot be read.
    static func read(
        descriptor: Int32, from start: Int64, to end: Int64, path: String,
        _ body: (UnsafeRawBufferPointer) -> Bool
    ) throws(DownloadError) {
        guard end > start else { return }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 16)
        defer { buffer.deallocate() }
        var offset = start
        while offset < end {
            let want = Int(min(Int64(blockSize), end - offset))
            let n = pread(descriptor, buffer.baseAddress, want, off_t(offset))
            if n < 0 {
                if errno == EINTR { continue }
                throw .fileSystem(path: path, reason: String(cString: strerror(errno)))
            }
            if n == 0 { throw .partialChanged(path: path, reason: "it is shorter than podq left it") }
            guard body(UnsafeRawBufferPointer(rebasing: buffer[..<n])) else { return }
            offset += Int64(n)
        }
    }
}

extension PartialFile {
    /// Hands `body` the file's bytes in `[start, end)`, block by block (``BlockReader``).
    func readBlocks(from start: Int64, to end: Int64, _ body: (UnsafeRawBufferPointer) -> Void) throws(DownloadError) {
        try BlockReader.read(descriptor: descriptor, from: start, to: end, path: path) {
            body($0); return true
        }
    }
}
