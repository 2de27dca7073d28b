import FoundationEssentials

/// Files shipped with podq (the demo podcast). No SwiftPM resource bundle: its accessor (`Bundle.module`)
/// needs the whole of Foundation, and with it ICU (docs/DECISIONS.md, "FoundationEssentials only").
public enum PodqResources {
    /// The folder of the demo podcast's files: `<prefix>/share/podq/demo` beside an installed
    /// `<prefix>/bin/podq` (`make install`, the Debian package, the tarball), else the source tree's
    /// `Resources/demo` for a binary in SwiftPM's build folder (a development build); nil elsewhere.
    public static var demoFolder: URL? {
        let fm = FileManager.default
        let executable = URL(fileURLWithPath: (try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        let bin = executable.deletingLastPathComponent()
        var candidates = [bin.deletingLastPathComponent().appendingPathComponent("share/podq/demo")]
        if isDevelopmentBuild(bin) { candidates.append(sourceDemo) }
        return candidates.first { fm.fileExists(atPath: $0.appendingPathComponent("podcast.json").path) }
    }

    /// The demo in the source tree this binary was built from.
    static var sourceDemo: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("demo") }

    /// A binary in SwiftPM's build folder (`.build/debug`, `.build/release`).
    static func isDevelopmentBuild(_ bin: URL) -> Bool {
        bin.path.contains("/.build/")
    }
}
