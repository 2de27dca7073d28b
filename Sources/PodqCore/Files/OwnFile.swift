import FoundationEssentials
import Glibc
import PodqBase

/// The files podq writes in its home (the database and its `-wal`/`-shm`, `lock`, `sync.lock`,
/// `podq.log`): opened as the download folder's files are, never through a symbolic link (a link at
/// `<home>/lock` made podq truncate the file it pointed to) and only when a regular file (a FIFO would
/// block the open). One refusal says what is there and how to fix it.
public enum OwnFile {
    /// Why a file of the home is not podq's to write.
    public enum Refusal: Error, Equatable, Sendable {
        case link
        case notRegular(kind: String)
        case system(reason: String)

        /// In words, for an error naming the file.
        public var reason: String {
            switch self {
            case .link: "it is a symbolic link, and podq writes no file of its home through one: remove the link (rm, not the file it points to)"
            case .notRegular(let kind): "it is \(kind), not a regular file: remove it"
            case .system(let reason): reason
            }
        }
    }

    /// Opens `path` with `flags` (O_CREAT and the others as for open(2)), never following a link and
    /// never blocking on a FIFO; the descriptor is blocking again once it is known to be a regular file.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o600) -> Result<Int32, Refusal> {
        let fd = Glibc.open(path, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, mode)
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP { return .failure(.link) }
            if let refusal = check(path) { return .failure(refusal) }
            return .failure(.system(reason: String(cString: strerror(code))))
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            let kind = describe(info.st_mode)
            close(fd)
            return .failure(.notRegular(kind: kind))
        }
        let current = fcntl(fd, F_GETFL)
        if current >= 0 { _ = fcntl(fd, F_SETFL, current & ~O_NONBLOCK) }
        return .success(fd)
    }

    /// What is wrong with the file at `path`, when something is there that podq must not write:
    /// nil when there is nothing, or a regular file.
    public static func check(_ path: String) -> Refusal? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFLNK: return .link
        default: return .notRegular(kind: describe(info.st_mode))
        }
    }

    /// "a folder", "a FIFO (named pipe)"…
    public static func describe(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a folder"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }
}
