import Foundation

/// Files bundled with podq (the demo podcast), found next to the executable.
public enum PodqResources {
    /// The folder of the demo podcast's files.
    public static var demoFolder: URL? {
        Bundle.module.url(forResource: "demo", withExtension: nil)
    }
}
