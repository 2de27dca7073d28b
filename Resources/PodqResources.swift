import Foundation

/// Files shipped with podq (the demo podcast).
public enum PodqResources {
    /// The folder of the demo podcast's files: `<prefix>/share/podq/demo` beside an installed
    /// `<prefix>/bin/podq` (`make install`, the Debian package, the tarball), else the resource bundle
    /// next to the executable, else the build's own (a development build).
    public static var demoFolder: URL? {
        let fm = FileManager.default
        let executable = URL(fileURLWithPath: (try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        let bin = executable.deletingLastPathComponent()
        for candidate in [
            bin.deletingLastPathComponent().appendingPathComponent("share/podq/demo"),
            bin.appendingPathComponent("podq_PodqResources.resources/demo"),
        ] where fm.fileExists(atPath: candidate.appendingPathComponent("podcast.json").path) {
            return candidate
        }
        // SwiftPM's accessor stops the process when its bundle is missing: only asked where one is.
        guard fm.fileExists(atPath: bin.appendingPathComponent("podq_PodqResources.resources").path) || isDevelopmentBuild(bin) else { return nil }
        return Bundle.module.url(forResource: "demo", withExtension: nil)
    }

    /// A binary in SwiftPM's build folder (`.build/debug`, `.build/release`): its bundle is there.
    static func isDevelopmentBuild(_ bin: URL) -> Bool {
        bin.path.contains("/.build/")
    }
}
