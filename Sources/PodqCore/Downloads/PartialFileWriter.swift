import FoundationEssentials
import Glibc
import PodqHTTP

/// Writes a download's chunks through an `OutputStream`: in podq, one over the claimed partial file's
/// descriptor (``PartialFile/makeOutputStream()``). Retries short writes and turns a failure into a
/// ``DownloadError`` (a full disk or quota is ``DownloadError/diskFull(path:)``).
final class PartialFileWriter {
    /// The file's path, for messages.
    let path: String
    private let stream: OutputStream

    /// Writes through `file`'s own stream, at its current position.
    convenience init(file: PartialFile) {
        self.init(stream: file.makeOutputStream(), path: file.path)
    }

    /// Writes through `stream` (opened here); `path` names it in errors.
    init(stream: OutputStream, path: String) {
        self.stream = stream
        self.path = path
        stream.open()
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
                throw Self.error(errno: stream.errorNumber != 0 ? stream.errorNumber : errno, path: path)
            }
            remaining -= n
            base += n
        }
    }

    /// Closes the stream; the partial file stays with its owner.
    func close() { stream.close() }

    /// The error for a failed write: a full disk (or quota) is ``DownloadError/diskFull(path:)``.
    static func error(errno code: Int32, path: String) -> DownloadError {
        if code == ENOSPC || code == EDQUOT || (code == 0 && isFull(path)) { return .diskFull(path: path) }
        return .fileSystem(path: path, reason: code == 0 ? "the write was refused" : String(cString: strerror(code)))
    }

    /// True when the file system holding `path` has no block left for us.
    static func isFull(_ path: String) -> Bool {
        var info = statvfs()
        return statvfs(path, &info) == 0 && info.f_bavail == 0
    }
}
