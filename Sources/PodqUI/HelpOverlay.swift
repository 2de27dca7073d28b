import PodqCore

/// The help overlay (`?`): every key, in a box over the middle of the screen.
public enum HelpOverlay {
    /// Each key and what it does (``KeyTable``), with the config's letters.
    public static func keys(_ bindings: KeyBindings = KeyBindings()) -> [(String, String)] {
        KeyTable.rows.map { (KeyTable.keys($0, bindings), $0.brief) }
    }

    static func render(into grid: inout Grid, keys bindings: KeyBindings = KeyBindings()) {
        let keys = keys(bindings)
        let keyWidth = 15
        let lines = keys.map { DisplayWidth.pad($0.0, to: keyWidth) + " " + $0.1 }
        let inner = min(grid.width - 4, (lines.map(DisplayWidth.of).max() ?? 0) + 2)
        // Borders, the keys, and the closing line: at 24 lines every key fits.
        let height = min(grid.height, lines.count + 3)
        guard inner > 10, height > 4 else { return }
        let left = (grid.width - inner - 2) / 2
        let top = (grid.height - height) / 2
        let blank = String(repeating: " ", count: inner)
        grid.put("┌" + String(repeating: "─", count: inner) + "┐", x: left, y: top, style: .bold)
        for row in 1..<(height - 1) {
            grid.put("│" + blank + "│", x: left, y: top + row, style: .bold)
        }
        grid.put("└" + String(repeating: "─", count: inner) + "┘", x: left, y: top + height - 1, style: .bold)
        grid.put(" Keys ", x: left + 2, y: top, style: .bold)
        for (i, line) in lines.prefix(height - 3).enumerated() {
            grid.put(DisplayWidth.truncate(line, to: inner - 2), x: left + 2, y: top + 1 + i)
        }
        grid.put(DisplayWidth.truncate("Any key closes this help.", to: inner - 2), x: left + 2, y: top + height - 2, style: .dim)
    }
}
