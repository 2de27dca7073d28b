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
        // corelibs traps when `streamError` is read without an error: check the status first.
        if stream.streamStatus == .error {
            throw stream.streamError.map { Self.map($0, path: partPath) } ?? .fileSystem(path: partPath, reason: "cannot open the file")
        }
        self.stream = stream
    }

    deinit { stream.close() }

    /// Writes every byte of `bytes`, retrying short writes.
    func write(_ bytes: UnsafeRawBufferPointer) throws(DownloadError) {
        guard var base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let n = stream.write(base, maxLength: remaining)
            if n <= 0 {
                if stream.streamStatus == .error, let error = stream.streamError { throw Self.map(error, path: partPath) }
                throw .fileSystem(path: partPath, reason: "the write was refused")
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

    static func map(_ error: any Error, path: String) -> DownloadError {
        let ns = error as NSError
        let code = (ns.domain == NSPOSIXErrorDomain) ? Int32(ns.code) : (ns.userInfo[NSUnderlyingErrorKey] as? NSError).map { Int32($0.code) }
        if code == ENOSPC || code == EDQUOT { return .diskFull(path: path) }
        if let code { return .fileSystem(path: path, reason: String(cString: strerror(code))) }
        return .fileSystem(path: path, reason: ns.localizedDescription)
    }
}
