/// The help overlay (`?`): every key, in a box over the middle of the screen.
public enum HelpOverlay {
    /// Each key and what it does, as product.md lists them.
    public static let keys: [(String, String)] = [
        ("↑ ↓  k j", "move the selection"),
        ("PgUp PgDn", "a page up / down"),
        ("Home End  g G", "first / last row"),
        ("Tab  1 2 3", "Downloads / Episodes / Podcasts"),
        ("Enter  d", "Episodes: queue it · Downloads: start it next · Podcasts: its episodes"),
        ("c", "cancel the download: stop it, delete its partial file"),
        ("p  Space", "pause / resume the download (the partial file is kept)"),
        ("r", "retry a failed or cancelled download"),
        ("K  J", "move the download up / down in the queue"),
        ("+  -", "more / fewer downloads at once (saved in the config)"),
        ("<  >", "halve / double the speed limit all downloads share (saved in the config)"),
        ("P", "pause all / resume all"),
        ("x", "remove the row (asks before deleting a completed file)"),
        ("a  u", "add a feed by URL · refresh the feeds"),
        ("/  Esc", "filter rows by text · clear the filter"),
        ("?", "this help"),
        ("q", "quit: downloads stop, partial files stay and resume next time"),
    ]

    static func render(into grid: inout Grid) {
        let keyWidth = 15
        let lines = keys.map { DisplayWidth.pad($0.0, to: keyWidth) + " " + $0.1 }
        let inner = min(grid.width - 4, (lines.map(DisplayWidth.of).max() ?? 0) + 2)
        let height = min(grid.height - 2, lines.count + 4)
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
        for (i, line) in lines.prefix(height - 4).enumerated() {
            grid.put(DisplayWidth.truncate(line, to: inner - 2), x: left + 2, y: top + 1 + i)
        }
        grid.put(DisplayWidth.truncate("Any key closes this help.", to: inner - 2), x: left + 2, y: top + height - 2, style: .dim)
    }
}
