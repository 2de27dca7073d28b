import FoundationEssentials
import Glibc

/// Where podq's guides are on this machine, so that a message that points to one points somewhere that
/// exists: the Debian package's `/usr/share/doc/podq` (compressed there when over 4 KB), `make install`'s
/// and the tarball's `<prefix>/share/doc/podq`, or a clone's `docs/` for a build inside it.
public enum PodqDocs {
    /// The guides every install ships (the developer's ARCHITECTURE.md and DECISIONS.md stay in the source).
    public static let guides = ["COMMANDS.md", "CONFIG.md", "FEEDS.md", "FILES.md", "STORE.md", "SYNC.md", "TROUBLESHOOTING.md"]

    /// How a message names the guide `name` (`FEEDS.md`): its path here when it is found, else the name
    /// and where the guides of an install are.
    public static func cite(_ name: String) -> String {
        path(of: name) ?? "\(name) in podq's documentation (/usr/share/doc/podq)"
    }

    /// The guide's path on this machine; nil when it is not found.
    public static func path(of name: String, executable: String? = nil) -> String? {
        let fm = FileManager.default
        let program = executable ?? (try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let bin = URL(fileURLWithPath: program).deletingLastPathComponent()
        let installed = bin.deletingLastPathComponent().appendingPathComponent("share/doc/podq")
        for candidate in [installed.appendingPathComponent(name), installed.appendingPathComponent(name + ".gz")]
        where fm.isReadableFile(atPath: candidate.path) {
            return candidate.path
        }
        // A build in a clone (.build/<triple>/debug/podq): the clone's docs/.
        var folder = bin
        for _ in 0..<5 {
            folder = folder.deletingLastPathComponent()
            let docs = folder.appendingPathComponent("docs/" + name)
            if fm.fileExists(atPath: folder.appendingPathComponent("Package.swift").path), fm.isReadableFile(atPath: docs.path) {
                return docs.path
            }
        }
        return nil
    }
}
