import PodqCore

/// The help overlay (`?`): every key, in a box over the middle of the screen.
public enum HelpOverlay {
    /// Each key and what it does (``KeyTable``), with the config's letters.
    public static func keys(_ bindings: KeyBindings = KeyBindings()) -> [(String, String)] {
        KeyTable.rows.map { (KeyTable.keys($0, bindings), $0.brief) }
    }

    /// Draws the box: each key, its meaning wrapped to the box's width, from line `scroll` (clamped
    /// here), with where the reader is when the screen cannot show every line.
    static func render(into grid: inout Grid, keys bindings: KeyBindings = KeyBindings(), scroll: inout Int) {
        let keys = keys(bindings)
        let widest = keys.map { DisplayWidth.of($0.0) }.max() ?? 0
        let longest = keys.map { DisplayWidth.of($0.1) }.max() ?? 0
        let height = grid.height
        let inner = min(grid.width - 4, widest + longest + 3)
        guard inner > 10, height > 4 else { return }
        let keyWidth = min(widest, inner / 3)
        var lines: [String] = []
        for (key, meaning) in keys {
            let wrapped = DisplayWidth.wrap(meaning, to: max(4, inner - 3 - keyWidth))
            for (i, part) in wrapped.enumerated() {
                lines.append(DisplayWidth.pad(i == 0 ? DisplayWidth.truncate(key, to: keyWidth) : "", to: keyWidth) + " " + part)
            }
        }
        // Borders, the keys, and the closing line.
        let shown = max(1, min(lines.count, height - 3))
        scroll = min(max(0, scroll), lines.count - shown)
        let boxHeight = shown + 3
        let left = (grid.width - inner - 2) / 2
        let top = (height - boxHeight) / 2
        grid.box(x: left, top: top, bottom: top + boxHeight - 1, inner: inner)
        grid.put(" Keys ", x: left + 2, y: top, style: .bold)
        for (i, line) in lines[scroll..<(scroll + shown)].enumerated() {
            grid.put(DisplayWidth.truncate(line, to: inner - 2), x: left + 2, y: top + 1 + i)
        }
        let footer =
            lines.count > shown
            ? "\(scroll + 1)–\(scroll + shown) of \(lines.count) · ↑↓ PgUp PgDn scroll · other keys close"
            : "Any key closes this help."
        grid.put(DisplayWidth.truncate(footer, to: inner - 2), x: left + 2, y: top + boxHeight - 2, style: .dim)
    }
}
