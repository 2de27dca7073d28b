/// A count with its noun, singular or plural as the number asks: "1 episode", "2 episodes", "0 feeds".
public enum Counted {
    /// `n` and `noun`, with `plural` (default: `noun` + "s") unless `n` is 1.
    public static func of(_ n: Int, _ noun: String, plural: String? = nil) -> String {
        "\(n) \(n == 1 ? noun : plural ?? noun + "s")"
    }
}
