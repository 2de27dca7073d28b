/// podq's version, shown by `--version` and sent in the `User-Agent`.
public enum PodqVersion {
    /// The version string.
    public static let current = "0.1.0"
}
