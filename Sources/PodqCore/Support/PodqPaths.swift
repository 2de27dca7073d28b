import FoundationEssentials
import Glibc
import PodqBase

/// Where podq keeps its files (docs/FILES.md).
///
/// The home holds the database, lock and log (and the config when one was given): `--home`, else `PODQ_HOME`, else
/// `$XDG_DATA_HOME/podq` (default `~/.local/share/podq`). The download folder is `--download-dir`,
/// else `$PODQ_HOME/downloads` when a home was given, else `~/Podcasts`.
public struct PodqPaths: Sendable, Equatable {
    public var home: String
    public var downloadFolder: String
    /// The config file: `<home>/config` when a home was given, else `$XDG_CONFIG_HOME/podq/config`.
    public var configFile: String

    /// The queue database.
    public var database: String { LexicalPath.join(home, "queue.sqlite") }

    /// Resolves the paths from the options and the environment.
    public init(
        home explicitHome: String?, downloadDir: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        let userHome = environment["HOME"] ?? LexicalPath.accountHome ?? "/"
        let givenHome = explicitHome ?? environment["PODQ_HOME"].flatMap { $0.isEmpty ? nil : $0 }
        if let givenHome {
            home = Self.absolute(givenHome)
        } else {
            let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? userHome + "/.local/share"
            home = Self.absolute(data) + "/podq"
        }
        if givenHome != nil {
            configFile = home + "/config"
        } else {
            let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? userHome + "/.config"
            configFile = Self.absolute(config) + "/podq/config"
        }
        if let downloadDir {
            downloadFolder = Self.absolute(downloadDir)
        } else if givenHome != nil {
            downloadFolder = home + "/downloads"
        } else {
            downloadFolder = userHome + "/Podcasts"
        }
    }

    /// The same paths, with the config's download folder when no `--download-dir` was given.
    public func applying(_ settings: Settings, downloadDirGiven: Bool) -> PodqPaths {
        var copy = self
        if !downloadDirGiven, let folder = settings.downloadFolder { copy.downloadFolder = Self.absolute(folder) }
        return copy
    }

    static func absolute(_ path: String) -> String {
        let expanded = LexicalPath.expandingTilde(path)
        return URL(fileURLWithPath: expanded).standardizedFileURL.path
    }
}
