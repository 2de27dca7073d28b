/// podq's version, shown by `--version` and sent in the `User-Agent`.
public enum PodqVersion {
    /// The version string.
    public static let current = "0.1.0"
    /// Where podq lives, named in its `User-Agent` so that a server's admin can find out what it is.
    public static let projectURL = "https://github.com/podq/podq"
}
