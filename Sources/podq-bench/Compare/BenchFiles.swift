import Foundation
import PodqTestSupport

/// The files nginx serves, generated once into a cache folder (seeded pseudo-random bytes, so no two
/// files share content and nothing compresses), and byte-for-byte checks of what the tools wrote.
enum BenchFiles {
    /// Drops `program`'s pages from the page cache (after syncing them), so that its next start reads
    /// it as a program installed long ago is read. A binary the linker just wrote sits in the cache
    /// in the large pieces it was written in, and every page fault then maps a whole piece: podq's
    /// peak RSS read 23.5 MB instead of 20.8 MB for `--version`, though it ran the same code
    /// (docs/PERFORMANCE.md). Done for every tool alike.
    static func evictFromPageCache(program: String) {
        let path =
            program.contains("/")
            ? program
            : (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin")
                .split(separator: ":").map { "\($0)/\(program)" }.first { access($0, X_OK) == 0 } ?? program
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = fsync(fd)
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
    }

    /// Writes `size` bytes of seed `seed` to `path` unless a file of that size is already there.
    static func make(_ path: String, size: Int64, seed: UInt64) throws {
        if DownloadCheck.size(path) == size { return }
        let source = PatternSource(seed: seed, length: size)
        guard FileManager.default.createFile(atPath: path + ".tmp", contents: nil), let out = FileHandle(forWritingAtPath: path + ".tmp") else {
            throw BenchError.setup("cannot write \(path)")
        }
        var offset: Int64 = 0
        while offset < size {
            let count = Int(min(4 << 20, size - offset))
            try out.write(contentsOf: source.bytes(offset: offset, count: count))
            offset += Int64(count)
        }
        try out.close()
        guard rename(path + ".tmp", path) == 0 else { throw BenchError.setup("cannot rename \(path)") }
    }
}

/// Byte-for-byte comparison of a download with its source.
enum DownloadCheck {
    static func size(_ path: String) -> Int64? {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : nil
    }

    /// Throws unless `path` holds exactly the bytes of `source`.
    static func same(_ path: String, as source: String, tool: Tool) throws {
        guard let a = FileHandle(forReadingAtPath: path) else { throw BenchError.mismatch("\(tool.rawValue) wrote no \(path)") }
        guard let b = FileHandle(forReadingAtPath: source) else { throw BenchError.setup("no source \(source)") }
        defer {
            try? a.close()
            try? b.close()
        }
        var offset: Int64 = 0
        while true {
            let x = try a.read(upToCount: 8 << 20) ?? Data()
            let y = try b.read(upToCount: 8 << 20) ?? Data()
            if x != y { throw BenchError.mismatch("\(tool.rawValue): \((path as NSString).lastPathComponent) differs from the source after byte \(offset)") }
            if x.isEmpty { return }
            offset += Int64(x.count)
        }
    }
}
