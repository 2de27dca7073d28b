import FoundationEssentials
import Glibc
import PodqBase

/// Where mpv's IPC socket goes for one `podq play`: a Unix socket's path holds at most 107 bytes, so a
/// home deeper than about 90 bytes cannot hold it (mpv then plays on, and nothing follows it). The
/// home when the path fits; else `$XDG_RUNTIME_DIR` (the user's own, 0700); else a folder of its
/// own (mkdtemp, 0700) in `$TMPDIR`, or /tmp when that is too deep too; removed with the socket.
package struct MPVSocket {
    /// The most bytes a socket's path may have (`sun_path` holds 108, with the final NUL).
    package static let longest = 107

    package let path: String
    /// The folder made for it, removed with it; nil when it is in a folder that was there.
    package let madeFolder: String?

    package init?(home: String, environment: [String: String] = ProcessInfo.processInfo.environment, pid: Int32 = getpid()) {
        let name = "mpv-\(pid).sock"
        let inHome = LexicalPath.join(home, name)
        if inHome.utf8.count <= Self.longest {
            self.init(path: inHome, madeFolder: nil)
            return
        }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"), Self.isOwnFolder(runtime) {
            let path = LexicalPath.join(runtime, "podq-" + name)
            if path.utf8.count <= Self.longest {
                self.init(path: path, madeFolder: nil)
                return
            }
        }
        let temporary = LexicalPath.join(LexicalPath.temporaryFolder, "podq-XXXXXX")
        for base in [temporary, "/tmp/podq-XXXXXX"] where base.utf8.count + "/mpv.sock".utf8.count <= Self.longest {
            var template = Array(base.utf8CString)
            guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap(mkdtemp) }) else { continue }
            let folder = String(cString: made)
            self.init(path: folder + "/mpv.sock", madeFolder: folder)
            return
        }
        return nil
    }

    private init(path: String, madeFolder: String?) {
        self.path = path
        self.madeFolder = madeFolder
        unlink(path)
    }

    /// Removes the socket, and the folder made for it.
    package func remove() {
        unlink(path)
        if let madeFolder { rmdir(madeFolder) }
    }

    /// Removes what a `podq play` killed with `kill -9` (or a crash) left in the home: `mpv-<pid>.sock`
    /// and `mpv-<pid>.log` of a process that is gone. Those of a podq still running are kept.
    package static func removeLeftovers(in home: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: home) else { return }
        for name in names where name.hasPrefix("mpv-") && (name.hasSuffix(".sock") || name.hasSuffix(".log")) {
            let digits = name.dropFirst(4).prefix { $0.isASCII && $0.isNumber }
            guard let pid = Int32(digits), pid > 0, pid != getpid(), name.dropFirst(4 + digits.count).first == "." else { continue }
            if kill(pid, 0) == -1 && errno == ESRCH { unlink(LexicalPath.join(home, name)) }
        }
    }

    /// A folder (not a link) of this user's that no one else may write in.
    private static func isOwnFolder(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR && info.st_uid == getuid() && info.st_mode & 0o022 == 0
    }
}
