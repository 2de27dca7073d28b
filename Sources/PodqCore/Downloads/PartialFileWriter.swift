import Foundation

/// Appends chunks to `<path>.part` through a Foundation `OutputStream`, then makes the file durable
/// and gives it its final name.
///
/// `OutputStream` has no public file descriptor, so ``commit(to:)`` fsyncs through a second
/// descriptor on the same path (Linux syncs the inode, whoever wrote it), then renames and fsyncs the
/// folder so the rename itself survives a crash.
final class PartialFileWriter {
    let partPath: String
    private let stream: OutputStream
    private(set) var bytesWritten: Int64 = 0

    /// Opens `partPath` for appending, or truncated when `truncate` is true; creates it when missing.
    init(partPath: String, truncate: Bool) throws(DownloadError) {
        self.partPath = partPath
        let folder = (partPath as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw .fileSystem(path: folder, reason: "cannot create the folder")
        }
        guard let stream = OutputStream(toFileAtPath: partPath, append: !truncate) else {
            throw .fileSystem(path: partPath, reason: "cannot open the file")
        }
        stream.open()
        // `streamError` is avoided: corelibs traps reading it without an error and logs link errors
        // reading it with one. `errno` from the failed system call says what happened.
        if stream.streamStatus == .error {
            throw Self.error(errno: errno, path: partPath)
        }
        self.stream = stream
    }

    deinit { stream.close() }

    /// Writes every byte of `bytes`, retrying short writes.
    func write(_ bytes: UnsafeRawBufferPointer) throws(DownloadError) {
        guard var base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var remaining = bytes.count
        while remaining > 0 {
            errno = 0
            let n = stream.write(base, maxLength: remaining)
            if n <= 0 {
                throw Self.error(errno: errno, path: partPath)
            }
            remaining -= n
            base += n
            bytesWritten += Int64(n)
        }
    }

    /// Closes the stream, fsyncs the file, renames it to `finalPath` and fsyncs the folder.
    func commit(to finalPath: String) throws(DownloadError) {
        stream.close()
        try Self.fsync(path: partPath)
        guard rename(partPath, finalPath) == 0 else {
            throw .fileSystem(path: finalPath, reason: String(cString: strerror(errno)))
        }
        try? Self.fsync(path: (finalPath as NSString).deletingLastPathComponent)
    }

    /// Closes the stream without renaming; the partial file stays for a resume.
    func close() { stream.close() }

    static func fsync(path: String) throws(DownloadError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .fileSystem(path: path, reason: String(cString: strerror(errno))) }
        defer { _ = Glibc.close(fd) }
        if Glibc.fsync(fd) != 0 {
            let code = errno
            if code == ENOSPC { throw .diskFull(path: path) }
            throw .fileSystem(path: path, reason: String(cString: strerror(code)))
        }
    }

    /// The error for a failed write or open: a full disk (or quota) is ``DownloadError/diskFull(path:)``.
    static func error(errno code: Int32, path: String) -> DownloadError {
        if code == ENOSPC || code == EDQUOT || (code == 0 && Self.isFull(path)) { return .diskFull(path: path) }
        return .fileSystem(path: path, reason: code == 0 ? "the write was refused" : String(cString: strerror(code)))
    }

    /// True when the file system holding `path` has no block left for us.
    static func isFull(_ path: String) -> Bool {
        var info = statvfs()
        return statvfs(path, &info) == 0 && info.f_bavail == 0
    }
}
