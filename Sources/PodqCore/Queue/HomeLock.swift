import FoundationEssentials
import Glibc
import PodqBase
import Synchronization

/// The one-runner lock: an exclusive `flock` on `<home>/lock`, holding the owner's pid and command.
///
/// The kernel drops the lock when the process ends however it ends (`kill -9` included), so a stale
/// lock file never blocks the next start.
public final class HomeLock: Sendable {
    /// Who holds the lock, as written in the lock file.
    public struct Holder: Sendable, Equatable {
        public var pid: Int32?
        public var command: String
    }

    public let path: String
    /// The locked file while held; -1 otherwise.
    private let held = Mutex<Int32>(-1)

    /// The lock `name` in `home`: `lock` runs the queue; `sync.lock` one sync at a time.
    public init(home: String, name: String = "lock") {
        path = LexicalPath.join(home, name)
    }

    /// Takes the lock without waiting; returns nil on success, or who holds it.
    /// - Throws: ``StoreError/cannotOpen(path:reason:)`` when the lock file cannot be created.
    public func acquire(command: String = CommandLine.arguments.joined(separator: " ")) throws(StoreError) -> Holder? {
        try? FileManager.default.createDirectory(atPath: LexicalPath.parent(of: path), withIntermediateDirectories: true)
        let fd: Int32
        switch OwnFile.open(path, O_RDWR | O_CREAT, mode: 0o644) {
        case .success(let opened): fd = opened
        case .failure(.system(let reason)): throw .cannotOpen(path: path, reason: reason)
        case .failure(let refusal): throw .notOwnFile(path: path, reason: refusal.reason)
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let holder = Self.readHolder(fd: fd)
            close(fd)
            return holder
        }
        held.withLock { $0 = fd }
        let text = "\(getpid())\n\(command)\n"
        _ = ftruncate(fd, 0)
        _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
        return nil
    }

    /// Who holds the lock now, or nil when nobody does.
    public func currentHolder() -> Holder? {
        guard case .success(let fd) = OwnFile.open(path, O_RDONLY) else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return nil
        }
        return Self.readHolder(fd: fd)
    }

    /// True while this object holds the lock.
    public var isHeld: Bool { held.withLock { $0 >= 0 } }

    /// Releases the lock.
    public func release() {
        let fd = held.withLock { fd in
            defer { fd = -1 }
            return fd
        }
        guard fd >= 0 else { return }
        flock(fd, LOCK_UN)
        close(fd)
    }

    deinit { release() }

    private static func readHolder(fd: Int32) -> Holder {
        var buffer = [UInt8](repeating: 0, count: 1024)
        let n = pread(fd, &buffer, buffer.count, 0)
        let text = n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : ""
        let lines = text.split(separator: "\n", maxSplits: 1).map(String.init)
        return Holder(pid: lines.first.flatMap { Int32($0) }, command: SafeText.clean(lines.dropFirst().first ?? ""))
    }
}
