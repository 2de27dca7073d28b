import CPodqSystem

/// podq's version, shown by `--version` and sent in the `User-Agent`. The one place it is set: the
/// Makefile reads it from here for `make deb` and `make dist`.
public enum PodqVersion {
    /// The version string.
    public static let current = "0.1.0"
    /// Where podq lives, named in its `User-Agent` so that a server's admin can find out what it is.
    public static let projectURL = "https://github.com/podq/podq"

    /// The git commit it was built from (`make` in a clone), else nil.
    public static var commit: String? {
        let text = String(cString: podq_build_commit())
        return text.isEmpty ? nil : text
    }

    /// What `podq --version` prints: `podq 0.1.0`, and the commit when there is one: `podq 0.1.0 (3f2a9c1d4e5b)`.
    public static var described: String {
        "podq \(current)" + (commit.map { " (\($0))" } ?? "")
    }
}
