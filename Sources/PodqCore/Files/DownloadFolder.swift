import CPodqSystem
import FoundationEssentials
import Glibc
import PodqBase
import PodqHTTP

/// The download folder, opened once: the one owner of every file podq creates, claims, writes,
/// commits or deletes under it.
///
/// Everything below the folder happens relative to its descriptor (`openat`, `mkdirat`, `renameat2`,
/// `unlinkat`) with `O_NOFOLLOW` on every component podq creates or enters, so a symbolic link where
/// podq expects a file or folder of its own is refused with an error naming it, and a podcast folder
/// swapped for a link after a download was queued cannot lead a write outside. The folder itself is the
/// user's choice and may be a link (to a shared disk, say): it is resolved once, when opened.
public final class DownloadFolder: Sendable {
    /// The folder, absolute and standardized, as given.
    public let path: String
    /// The folder with every link resolved (podq names files under it when they are queued).
    public let realPath: String
    private let descriptor: Int32

    /// Opens `path`, creating it (and its parents) when missing.
    /// - Throws: ``DownloadError/fileSystem(path:reason:)`` when it cannot be created or opened.
    public init(path: String) throws(DownloadError) {
        let standard = LexicalPath.standardized(path)
        do {
            try FileManager.default.createDirectory(atPath: standard, withIntermediateDirectories: true)
        } catch {
            throw .fileSystem(path: standard, reason: "cannot create the folder")
        }
        let fd = open(standard, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .fileSystem(path: standard, reason: Self.describe(errno)) }
        self.path = standard
        self.descriptor = fd
        if let real = realpath(standard, nil) {
            realPath = String(cString: real)
            free(real)
        } else {
            realPath = standard
        }
    }

    deinit { close(descriptor) }

    /// The path of `relative` inside this folder.
    public func absolute(_ relative: String) -> String {
        path == "/" ? "/" + relative : path + "/" + relative
    }

    /// `path` as a path relative to this folder (named through the folder as given or as resolved).
    /// - Throws: ``DownloadError/outsideDownloadFolder(path:)`` when it is not below the folder.
    public func relativePath(of path: String) throws(DownloadError) -> String {
        let standard = LexicalPath.standardized(path)
        for root in [self.path, realPath] {
            let prefix = root.hasSuffix("/") ? root : root + "/"
            if standard.hasPrefix(prefix), standard.count > prefix.count { return String(standard.dropFirst(prefix.count)) }
        }
        throw .outsideDownloadFolder(path: path)
    }

    // MARK: - Claiming

    /// Claims `<relative>.part` for one transfer: creates the folders on the way and the file when
    /// missing, never through a link, and takes an exclusive `flock` on it that lasts until the claim
    /// is committed, deleted or closed. Returns nil when another process holds it.
    /// - Parameter exclusive: only a new file will do (`O_EXCL`): nil when the name is taken.
    /// - Throws: ``DownloadError/symlinkRefused(path:)``, ``DownloadError/fileSystem(path:reason:)``.
    public func claim(_ relative: String, exclusive: Bool = false) throws(DownloadError) -> PartialFile? {
        guard case let (parent, name)? = try openParent(of: relative, create: true) else {
            throw .fileSystem(path: absolute(relative), reason: "its folder is missing")  // not with create: true
        }
        let partName = name + ".part"
        let partPath = absolute(relative) + ".part"
        // A name can change hands between the open and the lock (its owner committing): try again.
        for _ in 0..<5 {
            // Never blocking on a FIFO or a device in the partial's place: refused below, unread.
            let fd = openat(parent.descriptor, partName, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | (exclusive ? O_EXCL : 0), 0o644)
            if fd < 0 {
                let code = errno
                if code == EEXIST && exclusive { return nil }
                if code == ELOOP { throw .symlinkRefused(path: partPath) }
                throw Self.error(code, path: partPath)
            }
            var info = stat()
            guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_nlink == 1 else {
                close(fd)
                let reason = (info.st_mode & S_IFMT) == S_IFREG ? "it has other names (hard links)" : "it is not a regular file"
                throw .notPodqs(path: partPath, reason: reason)
            }
            Self.blocking(fd)
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                close(fd)
                return nil
            }
            var now = stat()
            if fstatat(parent.descriptor, partName, &now, AT_SYMLINK_NOFOLLOW) == 0,
                now.st_dev == info.st_dev, now.st_ino == info.st_ino
            {
                return PartialFile(folder: self, parent: parent, relative: relative, name: name, descriptor: fd, info: info)
            }
            close(fd)
            if exclusive { return nil }
        }
        throw .fileSystem(path: partPath, reason: "it keeps changing hands")
    }

    /// Clears `O_NONBLOCK` on `fd`, a regular file that was opened with it only so that opening
    /// something else in its place (a FIFO) could not block.
    static func blocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
    }

    /// Deletes `<relative>.part` when no process holds it (the runner of a cancelled or removed
    /// download). Leaves a link, or a partial another process writes, alone.
    /// - Returns: true when there is no partial file left.
    @discardableResult
    public func removePartial(_ relative: String) -> Bool {
        let found: (folder: Handle, name: String)
        do {
            guard let parent = try openParent(of: relative, create: false) else { return true }
            found = parent
        } catch {
            return false
        }
        let fd = openat(found.folder.descriptor, found.name + ".part", O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return errno == ENOENT }
        defer { close(fd) }
        var info = stat()
        var now = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, flock(fd, LOCK_EX | LOCK_NB) == 0,
            fstatat(found.folder.descriptor, found.name + ".part", &now, AT_SYMLINK_NOFOLLOW) == 0,
            now.st_dev == info.st_dev, now.st_ino == info.st_ino
        else { return false }
        return unlinkat(found.folder.descriptor, found.name + ".part", 0) == 0
    }

    /// ``removePartial(_:)`` for the partial of the final `path` (a row's destination); false when
    /// `path` is not below this folder.
    @discardableResult
    public func removePartial(of path: String) -> Bool {
        guard let relative = try? relativePath(of: path) else { return false }
        return removePartial(relative)
    }

    /// Deletes the file `relative` (a removed download's, one the cleanup rules select, one a
    /// replacement supersedes) only when it is the very file podq committed there: a regular file,
    /// reached without a link, whose device, inode, size and modification time are `recorded`'s. A file somebody else put at
    /// that name (the user's own, another program's), or one podq has no record of, is left alone:
    /// nothing is deleted that podq did not write.
    /// - Returns: true when it is gone (or was never there); false when it was left alone.
    @discardableResult
    /// - Parameter changedInPlace: also the file podq wrote there when its content or time changed since
    ///   (the same device, inode and birth time: bit rot, an edit, what `podq verify` calls changed): for
    ///   `podq queue add --replace`, which the user asks for that very file. Where the file system keeps
    ///   no birth time, a changed file is left alone.
    public func removeFile(_ relative: String, recorded: FileIdentity?, changedInPlace: Bool = false) throws(DownloadError) -> Bool {
        guard case let (parent, name)? = try openParent(of: relative, create: false) else { return true }
        var info = stat()
        guard fstatat(parent.descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return errno == ENOENT }
        if (info.st_mode & S_IFMT) == S_IFLNK { throw .symlinkRefused(path: absolute(relative)) }
        // The whole identity: a deleted file's inode is soon another file's, so device and inode alone
        // can name the user's own file written at the same name; its size and time tell them apart.
        guard (info.st_mode & S_IFMT) == S_IFREG, let recorded,
            FileIdentity(info) == recorded
                || (changedInPlace && recorded.isSameFileChanged(as: info, born: Self.birthTime(parent.descriptor, name)))
        else { return false }
        return unlinkat(parent.descriptor, name, 0) == 0 || errno == ENOENT
    }

    /// The identity of the file `relative`, reached without a link; nil when there is none.
    public func identity(of relative: String) -> FileIdentity? {
        guard case let (parent, name)? = try? openParent(of: relative, create: false) else { return nil }
        var info = stat()
        guard fstatat(parent.descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return FileIdentity(info)
    }

    /// The size of `<relative>.part`, reached without a link; 0 when there is none.
    public func partialSize(_ relative: String) -> Int64 {
        guard case let (parent, name)? = try? openParent(of: relative, create: false) else { return 0 }
        var info = stat()
        guard fstatat(parent.descriptor, name + ".part", &info, AT_SYMLINK_NOFOLLOW) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return 0 }
        return Int64(info.st_size)
    }

    // MARK: - Folders below

    /// Opens the folder that holds `relative`, entering (and with `create`, making) each folder on the
    /// way without following a link. Nil when a folder is missing and `create` is false.
    func openParent(of relative: String, create: Bool) throws(DownloadError) -> (folder: Handle, name: String)? {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard !relative.hasPrefix("/"), let name = parts.last, !parts.contains(where: { $0 == "." || $0 == ".." }) else {
            throw .outsideDownloadFolder(path: relative)
        }
        var current = Handle(dup(descriptor))
        var walked = path
        for part in parts.dropLast() {
            walked = walked == "/" ? "/" + part : walked + "/" + part
            if create && mkdirat(current.descriptor, part, 0o755) != 0 && errno != EEXIST {
                throw Self.error(errno, path: walked)
            }
            let fd = openat(current.descriptor, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else {
                let code = errno
                if code == ENOENT && !create { return nil }
                var info = stat()
                if code == ELOOP || (fstatat(current.descriptor, part, &info, AT_SYMLINK_NOFOLLOW) == 0 && (info.st_mode & S_IFMT) == S_IFLNK) {
                    throw .symlinkRefused(path: walked)
                }
                if code == ENOTDIR { throw .notPodqs(path: walked, reason: "it is a file, not a folder") }
                throw Self.error(code, path: walked)
            }
            current = Handle(fd)
        }
        return (current, name)
    }

    /// An open folder, closed when released.
    final class Handle: Sendable {
        let descriptor: Int32
        init(_ descriptor: Int32) { self.descriptor = descriptor }
        deinit { if descriptor >= 0 { close(descriptor) } }
    }

    static func error(_ code: Int32, path: String) -> DownloadError {
        if code == ENOSPC || code == EDQUOT { return .diskFull(path: path) }
        return .fileSystem(path: path, reason: describe(code))
    }

    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// The birth time of `name` in the folder `descriptor` (nil: `name` is nil and `descriptor` is the
    /// file), nil where the file system does not keep one.
    static func birthTime(_ descriptor: Int32, _ name: String?) -> Int64? {
        let born = name.map { podq_birth_time(descriptor, $0) } ?? podq_birth_time(descriptor, nil)
        return born < 0 ? nil : Int64(born)
    }
}
