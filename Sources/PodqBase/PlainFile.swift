import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A file opened by path for plain reads or writes: the part of Foundation's `FileHandle` podq used
/// (FoundationEssentials has no `FileHandle`). Reads and writes retry on EINTR and short counts; the
/// descriptor closes with the value or at ``close()``.
public final class PlainFile {
    public let descriptor: Int32

    /// Opens `path` to read; nil when it cannot be opened.
    public convenience init?(forReadingAtPath path: String) {
        self.init(path: path, flags: O_RDONLY)
    }

    /// Opens an existing `path` to write from its start; nil when it cannot be opened.
    public convenience init?(forWritingAtPath path: String) {
        self.init(path: path, flags: O_WRONLY)
    }

    private init?(path: String, flags: Int32) {
        let fd = Glibc.open(path, flags | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        descriptor = fd
    }

    private var closed = false

    deinit { close() }

    public func close() {
        guard !closed else { return }
        closed = true
        _ = Glibc.close(descriptor)
    }

    /// Up to `count` bytes from the current position; empty at the end of the file.
    public func read(upToCount count: Int) throws(PlainFileError) -> Data {
        var data = Data(count: count)
        var filled = 0
        while filled < count {
            let n = data.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + filled, count - filled) }
            if n < 0 {
                if errno == EINTR { continue }
                throw PlainFileError(code: errno)
            }
            if n == 0 { break }
            filled += n
        }
        data.count = filled
        return data
    }

    /// Moves the position to `offset` from the start.
    public func seek(toOffset offset: UInt64) throws(PlainFileError) {
        guard lseek(descriptor, off_t(offset), SEEK_SET) >= 0 else { throw PlainFileError(code: errno) }
    }

    /// Writes every byte of `data` at the current position.
    public func write(contentsOf data: some DataProtocol) throws(PlainFileError) {
        let bytes = Array(data)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw PlainFileError(code: errno)
            }
            done += n
        }
    }
}

/// A read or write of a ``PlainFile`` failed: the system's reason.
public struct PlainFileError: Error, LocalizedError {
    public let code: Int32
    public var errorDescription: String? { ErrorText.systemMessage(code) }
}
