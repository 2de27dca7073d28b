import FoundationEssentials
import Glibc

/// Which file a name pointed to when podq committed it: device, inode, size and modification time,
/// and, where the file system keeps one, its birth time.
///
/// A rename keeps all of them, so the row of a download that was renamed just before a crash can be told
/// from a file someone else put at the same name (docs/STORE.md, "At start-up"). Two identities are equal
/// when the four are: a `stat` has no birth time, and old rows have none stored. The birth time says
/// whether a file that changed since (another size or time: bit rot, an edit) is still the file podq wrote
/// (``isSameFileChanged(as:born:)``), since a freed inode number is soon a new file's.
public struct FileIdentity: Sendable, Hashable, Codable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    /// Nanoseconds since 1970.
    public var modified: Int64
    /// When the file was created (nanoseconds since 1970); nil where the file system does not say.
    public var born: Int64?

    public init(device: UInt64, inode: UInt64, size: Int64, modified: Int64, born: Int64? = nil) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
        self.born = born
    }

    public static func == (a: FileIdentity, b: FileIdentity) -> Bool {
        a.device == b.device && a.inode == b.inode && a.size == b.size && a.modified == b.modified
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(device)
        hasher.combine(inode)
        hasher.combine(size)
        hasher.combine(modified)
    }

    /// True when `info` (born `born`) is this very file with its content or time changed since: the same
    /// device and inode, and the same birth time, which both must know. Without a birth time it cannot be
    /// told from a new file that took the inode number: false.
    func isSameFileChanged(as info: stat, born: Int64?) -> Bool {
        guard let recorded = self.born, let born, recorded == born else { return false }
        return isSameFile(as: info)
    }

    init(_ info: stat) {
        self.init(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    /// True when `info` is the same file object (device and inode), whatever its size now.
    func isSameFile(as info: stat) -> Bool {
        device == UInt64(info.st_dev) && inode == UInt64(info.st_ino)
    }
}
