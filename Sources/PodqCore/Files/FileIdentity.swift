import Foundation

/// Which file a name pointed to when podq committed it: device, inode, size and modification time.
///
/// A rename keeps all four, so the row of a download that was renamed just before a crash can be told
/// from a file someone else put at the same name (docs/STORE.md, "At start-up").
public struct FileIdentity: Sendable, Hashable, Codable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    /// Nanoseconds since 1970.
    public var modified: Int64

    public init(device: UInt64, inode: UInt64, size: Int64, modified: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
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
