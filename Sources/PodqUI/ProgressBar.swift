/// The text of a progress bar.
public enum ProgressBar {
    /// One to seven eighths of a cell, filled from the left.
    static let partials: [Character] = [" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]

    /// `width` cells: filled `█` for `fraction` (the last cell in eighths, `▏` to `▉`), a moving block when `fraction` is nil (the length is
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
        // Eighths of a cell: the bar moves 8 times as smoothly as with whole cells.
        let eighths = Int.clamped(fraction * Double(width * 8), .down, in: 0...(width * 8))
        let full = eighths / 8, part = eighths % 8
        let partial = part == 0 || full == width ? "" : String(Self.partials[part])
        let used = full + (partial.isEmpty ? 0 : 1)
        return (String(repeating: "█", count: full) + partial, String(repeating: "·", count: width - used))
    }

    /// `width` cells for a file written in spans (a segmented download, each span a fraction of the
    /// file): a cell is `█` when its bytes are all written, `·` when none are, and in eighths (`▏` to
    /// `▉`) for what it holds in between, so the holes between segments show.
    public static func cells(spans: [ClosedRange<Double>], width: Int) -> [Character] {
        guard width > 0 else { return [] }
        return (0..<width).map { i in
            let low = Double(i) / Double(width), high = Double(i + 1) / Double(width)
            let covered = spans.reduce(0.0) { sum, span in sum + max(0, min(high, span.upperBound) - max(low, span.lowerBound)) }
            let eighths = Int.clamped(covered / (high - low) * 8, .down, in: 0...8)
            return eighths >= 8 ? "█" : eighths <= 0 ? (covered > 0 ? "▏" : "·") : Self.partials[eighths]
        }
    }
}
