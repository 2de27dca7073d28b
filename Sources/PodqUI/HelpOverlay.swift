import PodqCore

/// The help overlay (`?`): every key, in a box over the middle of the screen.
public enum HelpOverlay {
    /// Each key and what it does, as the README's key table lists them, with the config's letters.
    public static func keys(_ bindings: KeyBindings = KeyBindings()) -> [(String, String)] {
        func k(_ actions: KeyBindings.Action...) -> String { actions.map { String(bindings.key($0)) }.joined(separator: " ") }
        return [
            ("↑ ↓  " + k(.up, .down), "move the selection"),
            ("PgUp PgDn", "a page up / down"),
            ("Home End  " + k(.top, .bottom), "first / last row"),
            ("Tab  " + k(.downloads, .episodes, .podcasts), "Downloads / Episodes / Podcasts"),
            ("Enter  " + k(.open), "Episodes: queue it · Downloads: start it next · Podcasts: its episodes"),
            (k(.cancel), "cancel the download: stop it, delete its partial file"),
            (k(.pause) + "  Space", "pause / resume the download (the partial file is kept)"),
            (k(.retry) + "  " + k(.retryFailed), "retry a failed or cancelled download · retry every failed one"),
            (k(.play) + "  " + k(.played), "play a completed download with the player · mark episodes played / not"),
            (k(.moveUp) + "  " + k(.moveDown), "move the download up / down in the queue"),
            (
                k(.moreJobs) + " " + k(.fewerJobs) + " " + k(.morePerHost) + " " + k(.fewerPerHost) + " " + k(.slower) + " " + k(.faster),
                "more / fewer at once · from one host · halve / double the speed limit (saved)"
            ),
            (k(.pauseAll), "pause all / resume all"),
            (k(.remove) + "  " + k(.clearCompleted), "remove the row (asks before deleting a file) · clear the completed rows"),
            (k(.addFeed) + " " + k(.refresh) + " " + k(.queueNew), "add a feed by URL · refresh the feeds · queue a podcast's new or latest"),
            (k(.search) + " " + k(.next) + " " + k(.previous), "search titles and podcasts · the next / previous match"),
            (k(.filter) + "  " + k(.stateFilter) + "  Esc", "filter by text · by state · Esc: clear the marks, then the filters"),
            (k(.sort) + "  " + k(.sortReverse), "sort by the next column · the other way round"),
            (k(.detail), "the row's detail: facts, file, URLs, show notes (↑↓ scroll, Esc closes)"),
            (k(.mark) + "  " + k(.markAll), "mark the row · mark all shown; then p c r x and Enter act on every marked row"),
            (k(.help), "this help"),
            (k(.quit), "quit: downloads stop, partial files stay and resume next time"),
        ]
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
