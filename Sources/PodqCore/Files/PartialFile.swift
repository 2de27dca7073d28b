import CPodqSystem
import FoundationEssentials
import Glibc
import PodqBase
import PodqHTTP
import Synchronization

/// A `<name>.part` file claimed by ``DownloadFolder/claim(_:exclusive:)`` for one transfer: open, and
/// locked with an exclusive `flock` until it is committed, deleted or closed, so no other podq (of any
/// home) writes into it.
///
/// Bytes go in through ``makeOutputStream()``, an `OutputStream` on this very descriptor: the file is
/// never opened again by name, so a link swapped in meanwhile cannot redirect a write. ``commit(length:names:record:)``
/// checks the file's own size (`fstat`, not a counter), syncs it, checks that the name still points to
/// it, and gives it the first free final name with a rename that never replaces a file.
public final class PartialFile: Sendable {
    /// The final file's path relative to the download folder (the partial is this plus `.part`).
    public let relative: String
    private let folder: DownloadFolder
    private let parent: DownloadFolder.Handle
    private let name: String
    let descriptor: Int32
    private let device: UInt64
    private let inode: UInt64
    private let open = Mutex(true)

    init(folder: DownloadFolder, parent: DownloadFolder.Handle, relative: String, name: String, descriptor: Int32, info: stat) {
        self.folder = folder
        self.parent = parent
        self.relative = relative
        self.name = name
        self.descriptor = descriptor
        self.device = UInt64(info.st_dev)
        self.inode = UInt64(info.st_ino)
    }

    deinit { close() }

    private var partName: String { name + ".part" }

    /// The partial file's path, for messages.
    public var path: String { folder.absolute(relative) + ".part" }

    /// The bytes the file holds now.
    public func size() throws(DownloadError) -> Int64 {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw DownloadFolder.error(errno, path: path) }
        return Int64(info.st_size)
    }

    /// Empties the file (a download that starts again from zero).
    public func truncate() throws(DownloadError) {
        guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else { throw DownloadFolder.error(errno, path: path) }
    }

    /// Cuts the file to `length` bytes and places the writing position there.
    public func truncate(to length: Int64) throws(DownloadError) {
        guard ftruncate(descriptor, off_t(length)) == 0, lseek(descriptor, off_t(length), SEEK_SET) == off_t(length) else {
            throw DownloadFolder.error(errno, path: path)
        }
    }

    /// The last `count` bytes of the first `fileSize` (to compare with a resumed body's first bytes).
    public func read(count: Int, at offset: Int64) throws(DownloadError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
        guard n == count else { throw .partialChanged(path: path, reason: "it is shorter than podq left it") }
        return bytes
    }

    /// An `OutputStream` that writes to this file at its current position.
    public func makeOutputStream() -> OutputStream { DescriptorOutputStream(descriptor: descriptor) }

    /// An `OutputStream` that writes to this file from `offset` on, whatever the descriptor's position
    /// (one segment of a segmented download).
    public func makeOutputStream(at offset: Int64) -> OutputStream { DescriptorOutputStream(descriptor: descriptor, offset: offset) }

    /// Flushes the file's bytes to the disk (`fdatasync`): what a segmented download does before it
    /// saves how far each segment got.
    public func sync() throws(DownloadError) {
        guard fdatasync(descriptor) == 0 else { throw DownloadFolder.error(errno, path: path) }
    }

    /// Makes the file final: checks that it holds `length` bytes, syncs it, checks that `<name>.part`
    /// is still this file, then renames it to the first of `names` that is free (a rename that never
    /// replaces: `renameat2(RENAME_NOREPLACE)`), and syncs the folder. `record` hears the file's identity
    /// and the path it is about to get before each rename, so a crash right after still finds it.
    /// - Returns: the final path and the file's identity.
    /// - Throws: ``DownloadError/partialChanged(path:reason:)`` when the file is not what podq wrote (it
    ///   is emptied then, so nothing of it is resumed), ``DownloadError/diskFull(path:)``, or
    ///   ``DownloadError/fileSystem(path:reason:)``.
    public func commit(
        length: Int64, names: some Sequence<String>,
        record: (FileIdentity, String) async -> Void
    ) async throws(DownloadError) -> (path: String, identity: FileIdentity) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw DownloadFolder.error(errno, path: path) }
        guard Int64(info.st_size) == length else {
            try? truncate()
            throw .partialChanged(path: path, reason: "it holds \(info.st_size) bytes where podq wrote \(length)")
        }
        guard fsync(descriptor) == 0 else { throw DownloadFolder.error(errno, path: path) }
        guard isStillNamed() else { throw .partialChanged(path: path, reason: "another file took its name") }
        guard fstat(descriptor, &info) == 0 else { throw DownloadFolder.error(errno, path: path) }
        var identity = FileIdentity(info)
        identity.born = DownloadFolder.birthTime(descriptor, nil)
        let folderPath = LexicalPath.parent(of: folder.absolute(relative))
        for candidate in names {
            var existing = stat()
            if fstatat(parent.descriptor, candidate, &existing, AT_SYMLINK_NOFOLLOW) == 0 { continue }
            // Another download's partial of that name will want it: leave it the name.
            if candidate != name && fstatat(parent.descriptor, candidate + ".part", &existing, AT_SYMLINK_NOFOLLOW) == 0 { continue }
            let final = LexicalPath.join(folderPath, candidate)
            await record(identity, final)
            switch renameNoReplace(to: candidate) {
            case 0:
                _ = fsync(parent.descriptor)
                close()
                return (final, identity)
            case EEXIST:
                continue
            case let code:
                throw DownloadFolder.error(code, path: final)
            }
        }
        throw .fileSystem(path: path, reason: "no free name is left for it")
    }

    /// Renames the partial to `target` unless `target` exists; returns 0 or the errno.
    private func renameNoReplace(to target: String) -> Int32 {
        if podq_rename_noreplace(parent.descriptor, partName, parent.descriptor, target) == 0 { return 0 }
        let code = errno
        guard code == EINVAL || code == ENOSYS || code == EOPNOTSUPP else { return code }
        // A file system without RENAME_NOREPLACE (some network ones): a hard link fails on an existing
        // name just as atomically; without hard links (FAT), a rename after the check above.
        if linkat(parent.descriptor, partName, parent.descriptor, target, 0) == 0 {
            unlinkat(parent.descriptor, partName, 0)
            return 0
        }
        let linkCode = errno
        guard linkCode == EPERM || linkCode == EOPNOTSUPP || linkCode == EXDEV else { return linkCode }
        return renameat(parent.descriptor, partName, parent.descriptor, target) == 0 ? 0 : errno
    }

    /// True when `<name>.part` in its folder is still this open file.
    private func isStillNamed() -> Bool {
        var now = stat()
        return fstatat(parent.descriptor, partName, &now, AT_SYMLINK_NOFOLLOW) == 0 && UInt64(now.st_dev) == device
            && UInt64(now.st_ino) == inode
    }

    /// Deletes the partial file (a cancelled download) if its name is still this file, and releases it.
    public func delete() {
        if open.withLock({ $0 }) && isStillNamed() { unlinkat(parent.descriptor, partName, 0) }
        close()
    }

    /// Releases the claim, keeping the file for a resume. Safe to call twice.
    public func close() {
        let wasOpen = open.withLock { state in
            defer { state = false }
            return state
        }
        if wasOpen { Glibc.close(descriptor) }
    }
}
