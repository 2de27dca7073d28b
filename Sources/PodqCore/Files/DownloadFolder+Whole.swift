import CPodqSystem
import FoundationEssentials
import Glibc
import PodqBase
import PodqHTTP

extension DownloadFolder {
    /// Reads the committed file `relative` block by block (``BlockReader``), reached without following
    /// a link as every file podq owns: what `podq verify` hashes. `body` gets each block and returns
    /// false to stop.
    /// - Returns: false when there is no such file.
    /// - Throws: ``DownloadError/symlinkRefused(path:)`` for a link, ``DownloadError/fileSystem(path:reason:)``
    ///   when it cannot be read.
    public func read(_ relative: String, _ body: (UnsafeRawBufferPointer) -> Bool) throws(DownloadError) -> Bool {
        guard case let (parent, name)? = try openParent(of: relative, create: false) else { return false }
        // Never blocking: a FIFO or a device put in a file's place would hold `podq verify` forever on
        // a plain open. It is refused below (fstat) before anything is read.
        let fd = openat(parent.descriptor, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { return false }
            if code == ELOOP { throw .symlinkRefused(path: absolute(relative)) }
            throw Self.error(code, path: absolute(relative))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Self.error(errno, path: absolute(relative)) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notPodqs(path: absolute(relative), reason: "it is not a regular file") }
        Self.blocking(fd)
        // Sequential reading: the kernel reads ahead in larger steps.
        _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
        try BlockReader.read(descriptor: fd, from: 0, to: Int64(info.st_size), path: absolute(relative), body)
        return true
    }
}

extension DownloadFolder {
    /// The whole of a small file podq wrote (a sidecar), read as ``read(_:_:)`` reads: nil when there
    /// is no such file or it is larger than `limit` bytes (`tooLarge`).
    public func contents(of relative: String, limit: Int) throws(DownloadError) -> (bytes: [UInt8], tooLarge: Bool)? {
        var bytes: [UInt8] = []
        var tooLarge = false
        let found = try read(relative) { block in
            guard bytes.count + block.count <= limit else {
                tooLarge = true
                return false
            }
            bytes += block
            return true
        }
        return found ? (bytes, tooLarge) : nil
    }
}

extension DownloadFolder {
    /// Gives the file `relative` the name `target` in the same folder tree, never over another file
    /// (`renameat2(RENAME_NOREPLACE)`). Returns false when `target` exists.
    /// - Throws: ``DownloadError/symlinkRefused(path:)`` for a link on the way, or when it cannot be renamed.
    public func rename(_ relative: String, to target: String) throws(DownloadError) -> Bool {
        guard case let (from, name)? = try openParent(of: relative, create: false),
            case let (to, newName)? = try openParent(of: target, create: true)
        else { return false }
        if podq_rename_noreplace(from.descriptor, name, to.descriptor, newName) == 0 { return true }
        if errno == EEXIST { return false }
        guard errno == EINVAL || errno == ENOSYS else { throw Self.error(errno, path: absolute(target)) }
        // A file system that cannot refuse atomically (some network shares): look, then rename.
        var info = stat()
        if fstatat(to.descriptor, newName, &info, AT_SYMLINK_NOFOLLOW) == 0 { return false }
        guard renameat(from.descriptor, name, to.descriptor, newName) == 0 else { throw Self.error(errno, path: absolute(target)) }
        return true
    }
}

extension DownloadFolder {
    /// Writes a small file whole (a playlist, an episode's sidecar) as every file here is written:
    /// claimed as `<relative>.part`, written through its `OutputStream`, synced and committed under the
    /// first free name of `relative`, ` (2)`… (never over another file). Returns its path.
    public func writeFile(_ relative: String, bytes: [UInt8]) async throws(DownloadError) -> String {
        let names = Array(FileNamer.numberedNames(LexicalPath.lastComponent(of: relative)).prefix(100))
        let folder = LexicalPath.parent(of: relative)
        for name in names {
            let candidate = folder.isEmpty ? name : folder + "/" + name
            guard let file = try claim(candidate, exclusive: true) else { continue }
            let writer = PartialFileWriter(file: file)
            do throws(DownloadError) {
                var failure: DownloadError?
                bytes.withUnsafeBytes { raw in
                    do throws(DownloadError) { try writer.write(raw) } catch { failure = error }
                }
                writer.close()
                if let failure { throw failure }
                return try await file.commit(length: Int64(bytes.count), names: names.drop { $0 != name }) { _, _ in }.path
            } catch {
                file.delete()
                throw error
            }
        }
        throw .fileSystem(path: absolute(relative), reason: "no free name is left for it")
    }
}
