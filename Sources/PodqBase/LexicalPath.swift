import Foundation
import SystemPackage

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
