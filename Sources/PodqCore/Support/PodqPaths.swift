import Foundation

/// Where podq keeps its files (product.md, "Words").
///
/// The home holds the database, config and lock: `--home`, else `PODQ_HOME`, else
/// `$XDG_DATA_HOME/podq` (default `~/.local/share/podq`). The download folder is `--download-dir`,
/// else `$PODQ_HOME/downloads` when a home was given, else `~/Podcasts`.
public struct PodqPaths: Sendable, Equatable {
    public var home: String
    public var downloadFolder: String

    /// Resolves the paths from the options and the environment.
    public init(home explicitHome: String?, downloadDir: String?,
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        let userHome = environment["HOME"] ?? NSHomeDirectory()
        let givenHome = explicitHome ?? environment["PODQ_HOME"].flatMap { $0.isEmpty ? nil : $0 }
        if let givenHome {
            home = Self.absolute(givenHome)
        } else {
            let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? userHome + "/.local/share"
            home = Self.absolute(data) + "/podq"
        }
        if let downloadDir {
            downloadFolder = Self.absolute(downloadDir)
        } else if givenHome != nil {
            downloadFolder = home + "/downloads"
        } else {
            downloadFolder = userHome + "/Podcasts"
        }
    }

    static func absolute(_ path: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        return URL(fileURLWithPath: expanded).standardizedFileURL.path
    }
}
