import Foundation

extension DownloadFolder {
    /// Reads the committed file `relative` block by block (``BlockReader``), reached without following
    /// a link as every file podq owns: what `podq verify` hashes. `body` gets each block and returns
    /// false to stop.
    /// - Returns: false when there is no such file.
    /// - Throws: ``DownloadError/symlinkRefused(path:)`` for a link, ``DownloadError/fileSystem(path:reason:)``
    ///   when it cannot be read.
    public func read(_ relative: String, _ body: (UnsafeRawBufferPointer) -> Bool) throws(DownloadError) -> Bool {
        guard case let (parent, name)? = try openParent(of: relative, create: false) else { return false }
        let fd = openat(parent.descriptor, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
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
        // Sequential reading: the kernel reads ahead in larger steps.
        _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
        try BlockReader.read(descriptor: fd, from: 0, to: Int64(info.st_size), path: absolute(relative), body)
        return true
    }
}
