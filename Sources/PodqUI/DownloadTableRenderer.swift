import PodqCore

/// Renders download rows into a ``Grid``: state, title, bar, percent, received / expected, speed, ETA.
///
/// At narrow widths columns drop out (ETA, then speed, then the amounts, then the bar) instead of
/// wrapping; the title takes what is left.
public struct DownloadTableRenderer: Sendable {
    /// Advances indeterminate bars.
    public var tick: Int

    public init(tick: Int = 0) { self.tick = tick }

    struct Layout {
        var state = 11
        var bar = 0
        var percent = 0
        var amount = 0
        var speed = 0
        var eta = 0
        var title = 0
    }

    func layout(width: Int) -> Layout {
        var l = Layout()
        var rest = width - l.state - 1
        func take(_ cells: Int, leaving title: Int) -> Int? {
            guard rest - (cells + 1) >= title else { return nil }
            rest -= cells + 1
            return cells
        }
        // By priority: percent and bar keep 12 cells for the title; speed, ETA and the amounts only
        // come when the title keeps 24 (at 80 columns the amounts drop out, the title gets 34).
        l.percent = take(4, leaving: 12) ?? 0
        l.bar = take(rest >= 120 ? 24 : rest >= 70 ? 16 : 10, leaving: 12) ?? 0
        l.speed = take(10, leaving: 24) ?? 0
        l.eta = l.speed > 0 ? take(6, leaving: 24) ?? 0 : 0
        l.amount = take(19, leaving: 24) ?? 0
        l.title = max(0, rest)
        return l
    }

    /// `title` for `cells` cells (``Grid/put(_:x:y:style:cells:)`` cuts what is still too wide). A
    /// `Podcast — Episode` title that does not fit cuts the podcast's name first, so rows of one podcast
    /// stay told apart, but keeps at least 8 cells of it (then the episode's title is cut too), so the
    /// rows of different podcasts stay told apart as well.
    static func shortened(_ title: String, to cells: Int) -> String {
        guard DisplayWidth.of(title) > cells, let dash = title.firstRange(of: " — ") else { return title }
        let podcast = String(title[..<dash.lowerBound])
        let episode = String(title[dash.upperBound...])
        let room = cells - DisplayWidth.of(episode) - 3
        if room >= 8 { return DisplayWidth.truncate(podcast, to: room) + " — " + episode }
        let keep = min(8, DisplayWidth.of(podcast))
        guard cells - keep - 3 >= 8 else { return episode }
        return DisplayWidth.truncate(podcast, to: keep) + " — " + episode
    }

    /// One line per row, `width` cells wide, from line `y` of `grid`.
    public func render(_ rows: [DownloadRow], into grid: inout Grid, y: Int = 0, selected: Int? = nil) {
        let l = layout(width: grid.width)
        for (i, row) in rows.enumerated() {
            let line = y + i
            if line >= grid.height { break }
            var x = 0
            // A segmented download says how many connections fetch it.
            let state = row.connections > 1 && row.state == .downloading ? "\(row.connections) segments" : row.state.name
            x = grid.put(state, x: x, y: line, style: style(for: row.state), cells: l.state) + 1
            x = grid.put(Self.shortened(row.title, to: l.title), x: x, y: line, cells: l.title) + 1
            if l.bar > 0 {
                // Only a running download of unknown length gets the moving bar.
                let fraction = row.state == .completed ? 1 : row.fraction ?? (row.state == .downloading ? nil : 0)
                let moving = row.state == .downloading ? tick : 0
                if let spans = row.spans, row.state == .downloading {
                    // Each cell filled as far as the segments have written its bytes.
                    for (i, cell) in ProgressBar.cells(spans: spans, width: l.bar).enumerated() {
                        grid.put(String(cell), x: x + i, y: line, style: cell == "·" ? .barEmpty : .barFilled)
                    }
                } else {
                    let bar = ProgressBar.cells(fraction: fraction, width: l.bar, tick: moving)
                    let after = grid.put(bar.filled, x: x, y: line, style: .barFilled)
                    grid.put(bar.empty, x: after, y: line, style: .barEmpty)
                }
                x += l.bar + 1
            }
            if l.percent > 0 {
                x = grid.put(Format.percent(row.state == .completed ? 1 : row.fraction), x: x, y: line, cells: l.percent) + 1
            }
            if l.amount > 0 {
                let text = Format.amount(received: row.received, expected: row.expected, estimate: row.estimate)
                x = grid.put(text, x: x, y: line, style: .dim, cells: l.amount) + 1
            }
            if l.speed > 0 {
                x = grid.put(Format.speed(row.speed), x: x, y: line, cells: l.speed) + 1
            }
            if l.eta > 0 {
                grid.put(Format.eta(row.eta), x: x, y: line, cells: l.eta)
            }
            if selected == i { grid.style(x: 0, y: line, count: grid.width, .selected) }
        }
    }

    /// The column titles, aligned with ``render(_:into:y:selected:)``'s columns.
    public func header(into grid: inout Grid, y: Int) {
        let l = layout(width: grid.width)
        var x = grid.put("STATE", x: 0, y: y, style: .dim, cells: l.state) + 1
        for (title, cells) in [
            ("TITLE", l.title), ("PROGRESS", l.bar), ("   %", l.percent), ("RECEIVED / TOTAL", l.amount),
            ("SPEED", l.speed), ("ETA", l.eta),
        ] where cells > 0 {
            x = grid.put(title, x: x, y: y, style: .dim, cells: cells) + 1
        }
    }

    /// The rows as lines of text, `width` cells wide (the live lines of `podq download`).
    public func lines(_ rows: [DownloadRow], width: Int) -> [String] {
        var grid = Grid(width: width, height: rows.count)
        render(rows, into: &grid)
        return grid.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    func style(for state: DownloadState) -> CellStyle {
        switch state {
        case .completed: .success
        case .failed: .failure
        case .downloading: .accent
        case .queued, .paused, .cancelled: .dim
        }
    }
}
