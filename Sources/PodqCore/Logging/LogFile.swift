import FoundationEssentials
import Glibc
import Synchronization

/// An append-only, size-capped log file with rotation: `podq.log` grows to ``maxBytes``, then becomes
/// `podq.log.1` (the older ones move up to `.2`, `.3`, …, and the oldest past ``keep`` is deleted).
///
/// Several podq processes may share one home (`podq download` running, `podq queue add` beside it),
/// so every line is one `write(2)` on a descriptor opened with `O_APPEND`, and rotation happens
/// under an exclusive `flock` after checking that no other process rotated first. The file is opened
/// per line: podq logs events (a download started, failed, a feed refreshed), not chunks. A log that
/// cannot be written (read-only home, full disk) is skipped silently: logging never stops a download.
public final class LogFile: Sendable {
    /// The log file's path.
    public let path: String
    /// The size at which the file is rotated.
    public let maxBytes: Int64
    /// How many rotated files are kept.
    public let keep: Int
    /// One append at a time in this process (the `flock` orders processes).
    private let lock = Mutex(())

    /// - Parameters:
    ///   - maxBytes: the size at which the file is rotated (at least 4 KiB).
    ///   - keep: rotated files kept (`podq.log.1` … `podq.log.<keep>`), at least 1.
    public init(path: String, maxBytes: Int64 = 1_048_576, keep: Int = 3) {
        self.path = path
        self.maxBytes = max(4096, maxBytes)
        self.keep = max(1, keep)
    }

    /// The rotated files' paths, newest first (whether they exist or not).
    public var rotatedPaths: [String] { (1...keep).map { "\(path).\($0)" } }

    /// Appends `line` (a newline is added), rotating first when the file would pass ``maxBytes``.
    ///
    /// The size check, the rotation and the write happen under an exclusive `flock`, so two processes
    /// cannot both fit a line into the last free bytes, nor rotate twice.
    public func append(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        lock.withLock { _ in
            // After a rotation the new file is opened and locked like any other; the third pass writes
            // whatever the size (a line is never dropped for the cap).
            for attempt in 0..<3 {
                guard let fd = openLocked() else { return }
                defer {
                    flock(fd, LOCK_UN)
                    close(fd)
                }
                let size = Self.size(fd)
                if attempt < 2, size > 0, size + Int64(bytes.count) > maxBytes {
                    rotate()
                    continue
                }
                _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                return
            }
        }
    }

    /// Opens the log and takes its exclusive lock; if another process rotated it between the open
    /// and the lock (the path names another file now), opens the new one instead.
    private func openLocked() -> Int32? {
        for _ in 0..<5 {
            let fd = Self.open(path)
            guard fd >= 0 else { return nil }
            guard flock(fd, LOCK_EX) == 0 else {
                close(fd)
                return nil
            }
            var open = stat()
            var named = stat()
            if fstat(fd, &open) == 0, stat(path, &named) == 0, open.st_ino == named.st_ino, open.st_dev == named.st_dev {
                return fd
            }
            flock(fd, LOCK_UN)
            close(fd)
        }
        return nil
    }

    /// Renames the files one step up: the oldest is deleted, `podq.log` becomes `podq.log.1`.
    private func rotate() {
        let rotated = rotatedPaths
        unlink(rotated[rotated.count - 1])
        for index in stride(from: rotated.count - 1, to: 0, by: -1) {
            rename(rotated[index - 1], rotated[index])
        }
        rename(path, rotated[0])
    }

    /// Opens the log for appending; -1 unless it is a regular file (a FIFO in its place would block
    /// every command on a plain open: it is opened without blocking, looked at, and refused).
    private static func open(_ path: String) -> Int32 {
        // Never through a link (QueueStore refuses to start on one, naming it).
        guard case .success(let fd) = OwnFile.open(path, O_WRONLY | O_APPEND | O_CREAT) else { return -1 }
        return fd
    }

    private static func size(_ fd: Int32) -> Int64 {
        var info = stat()
        return fstat(fd, &info) == 0 ? Int64(info.st_size) : 0
    }
}
