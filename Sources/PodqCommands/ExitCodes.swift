/// podq's exit codes (product.md, "podq download"); docs/ARCHITECTURE.md lists them too.
public enum ExitCodes {
    /// Every download it ran completed.
    public static let success: Int32 = 0
    /// At least one download failed.
    public static let failure: Int32 = 1
    /// Bad usage or input.
    public static let usage: Int32 = 2
    /// Another podq holds the queue.
    public static let locked: Int32 = 3
    /// Stopped by SIGINT or SIGTERM, partial files kept.
    public static let interrupted: Int32 = 130
}
