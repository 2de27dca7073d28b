/// The text of a progress bar.
public enum ProgressBar {
    /// `width` cells: filled `█` for `fraction`, a moving block when `fraction` is nil (the length is
    /// unknown), `tick` advancing it one cell a frame.
    public static func cells(fraction: Double?, width: Int, tick: Int = 0) -> (filled: String, empty: String) {
        guard width > 0 else { return ("", "") }
        guard let fraction else {
            let block = min(3, width)
            let span = max(1, width - block + 1)
            let phase = tick % (2 * span)
            let start = phase < span ? phase : 2 * span - phase - 1
            let before = String(repeating: "·", count: start)
            let after = String(repeating: "·", count: width - start - block)
            return (before + String(repeating: "█", count: block) + after, "")
        }
        let full = Int((min(1, max(0, fraction)) * Double(width)).rounded(.down))
        return (String(repeating: "█", count: full), String(repeating: "·", count: width - full))
    }
}
