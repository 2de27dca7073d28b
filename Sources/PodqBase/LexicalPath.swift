import FoundationEssentials
import Glibc
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Paths made absolute and standardized by their text alone: `.` and `..` taken away, repeated and
/// trailing slashes gone, links left as they are. What `URL(fileURLWithPath:).standardizedFileURL.path`
/// gives, without the `stat` that `URL(fileURLWithPath:)` makes of every path to learn whether it is a
/// folder (500 queued rows cost the TUI's start 500 of them).
public enum LexicalPath {
    /// `path`, absolute (a relative one is taken from `currentDirectory`, by default the process's) and
    /// lexically normalized.
    public static func standardized(_ path: String, currentDirectory: @autoclosure () -> String = FileManager.default.currentDirectoryPath)
        -> String
    {
        var file = FilePath(path)
        if !file.isAbsolute { file = FilePath(currentDirectory()).pushing(file) }
        let normal = file.lexicallyNormalized().string
        return normal.isEmpty ? "/" : normal
    }
}

/// What podq asked of `NSString`'s path methods, on plain strings (FoundationEssentials has no
/// NSString): the same answers, by text alone (LexicalPathTests compares them on generated paths).
/// As NSString does, each first writes repeated slashes as one and drops a trailing one.
extension LexicalPath {
    /// `folder` and `name` joined by a slash (`appendingPathComponent`): "a/" + "b" is "a/b", "" + "b"
    /// is "b"; an empty `name` leaves `folder` as it is; slashes inside `folder` stay as they are.
    public static func join(_ folder: String, _ name: some StringProtocol) -> String {
        if name.isEmpty { return folder }
        if folder.isEmpty { return fixingSlashes(String(name)) }
        let head = folder.hasSuffix("/") ? folder : folder + "/"
        return fixingSlashes(head + name.drop(while: { $0 == "/" }), inside: false)
    }

    /// The folder part (`deletingLastPathComponent`): "/a/b" is "/a", "/a" is "/", "a" is "", "/" is "/".
    public static func parent(of path: String) -> String {
        let fixed = fixingSlashes(path)
        guard let slash = fixed.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        if fixed == "/" { return "/" }
        if slash == fixed.utf8.startIndex { return "/" }
        return String(fixed[..<slash])
    }

    /// The last part (`lastPathComponent`): "/a/b/" is "b", "/" is "/", "" is "".
    public static func lastComponent(of path: String) -> String {
        let fixed = fixingSlashes(path)
        if fixed == "/" { return "/" }
        guard let slash = fixed.utf8.lastIndex(of: UInt8(ascii: "/")) else { return fixed }
        return String(fixed[fixed.utf8.index(after: slash)...])
    }

    /// The extension of the last part, without its dot (`pathExtension`): "a.tar.gz" is "gz"; ".profile",
    /// "a." and "a" have none.
    public static func pathExtension(of path: String) -> String {
        let name = lastComponent(of: path)
        guard let dot = extensionDot(name) else { return "" }
        return String(name[name.utf8.index(after: dot)...])
    }

    /// `path` without the extension of its last part, and without a last dot that has nothing after
    /// it ("c." is "c", `deletingPathExtension`).
    public static func deletingExtension(of path: String) -> String {
        let fixed = fixingSlashes(path)
        let name = lastComponent(of: fixed)
        guard name != "/", name != ".", name != "..", let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")), dot != name.utf8.startIndex else { return fixed }
        return String(Substring(fixed.utf8.dropLast(name.utf8.distance(from: dot, to: name.utf8.endIndex))))
    }

    /// Where the extension's dot is in `name`: the last dot, neither first nor last.
    static func extensionDot(_ name: String) -> String.Index? {
        guard let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")), dot != name.utf8.startIndex,
            name.utf8.index(after: dot) != name.utf8.endIndex
        else { return nil }
        return dot
    }

    /// Repeated slashes written as one (unless `inside` is false), a trailing one dropped (not the root's).
    static func fixingSlashes(_ path: String, inside: Bool = true) -> String {
        guard path.utf8.contains(UInt8(ascii: "/")) else { return path }
        var out: [UInt8] = []
        out.reserveCapacity(path.utf8.count)
        for byte in path.utf8 where !(inside && byte == UInt8(ascii: "/") && out.last == UInt8(ascii: "/")) { out.append(byte) }
        while out.count > 1 && out.last == UInt8(ascii: "/") { out.removeLast() }
        return String(decoding: out, as: UTF8.self)
    }

    /// A leading `~` or `~/` made the home folder (`expandingTildeInPath`); `~user` that user's home.
    public static func expandingTilde(_ path: String) -> String {
        guard path.hasPrefix("~") else { return path }
        let rest = path.dropFirst()
        let user = rest.prefix(while: { $0 != "/" })
        let home: String?
        if user.isEmpty {
            home = ProcessInfo.processInfo.environment["HOME"] ?? userHome(nil)
        } else {
            home = userHome(String(user))
        }
        guard let home else { return path }
        let tail = rest.dropFirst(user.count)
        return tail.isEmpty || tail == "/" ? fixingSlashes(home) : join(home, tail)
    }

    /// The folder for temporary files: `$TMPDIR`, else /tmp (`NSTemporaryDirectory()`).
    public static var temporaryFolder: String {
        if let folder = ProcessInfo.processInfo.environment["TMPDIR"], !folder.isEmpty { return folder }
        return "/tmp"
    }

    /// The home folder of the account running podq (its passwd entry), whatever `$HOME` says.
    public static var accountHome: String? { userHome(nil) }

    static func userHome(_ name: String?) -> String? {
        let entry = name.map { getpwnam($0) } ?? getpwuid(getuid())
        guard let entry, let dir = entry.pointee.pw_dir else { return nil }
        return String(cString: dir)
    }
}
