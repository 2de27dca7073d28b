import PodqCore

/// Draws the Transcript pane over the table (the tab line above it, the status, message and hint
/// lines below it stay): a box with a line a cue (its time, then its text) or, for a search, each
/// episode's heading and its hits with the words found marked. The selected line is drawn whole,
/// wrapped; the others are cut to the box, around the first word found.
enum TranscriptRenderer {
    /// The width of the time column: "1:02:03" right-aligned.
    static let timeWidth = 8

    static func render(_ pane: inout TranscriptPane, into grid: inout Grid, keys: KeyBindings) {
        let top = 1, bottom = grid.height - 4
        guard grid.width >= 24, bottom - top >= 2 else { return }
        let inner = grid.width - 2, textWidth = inner - 2
        grid.box(top: top, bottom: bottom, inner: inner)
        grid.put(DisplayWidth.truncate(" " + title(pane) + " ", to: inner - 2), x: 2, y: top, style: .bold)
        var rows = bottom - top - 1
        if pane.loading || pane.lines.isEmpty {
            let said: String
            if pane.loading {
                switch pane.kind {
                case .episode: said = "Reading the transcript (from the store, beside the file, or the feed's link)…"
                case .search(let words): said = "Searching every transcript for “\(words)”…"
                }
            } else {
                said = pane.note ?? "Nothing to show."
            }
            for (i, line) in DisplayWidth.wrap(said, to: textWidth).prefix(rows).enumerated() {
                grid.put(line, x: 2, y: top + 1 + i, style: pane.failed ? .failure : pane.loading ? .dim : .normal)
            }
        } else {
            if let note = pane.note, rows > 2 {
                grid.put(DisplayWidth.truncate(note, to: textWidth), x: 2, y: bottom - 1, style: .dim)
                rows -= 1
            }
            drawLines(&pane, into: &grid, x: 2, y: top + 1, width: textWidth, rows: rows)
        }
        let footer = self.footer(pane, keys: keys)
        grid.put(DisplayWidth.truncate(footer, to: inner - 2), x: max(2, inner - DisplayWidth.of(footer)), y: bottom, style: .dim)
    }

    static func title(_ pane: TranscriptPane) -> String {
        switch pane.kind {
        case .episode(_, _, let title): "Transcript: " + title
        case .search(let words): "Where every transcript says “\(words)”"
        }
    }

    /// The box's own line: what Enter does and how to leave (the hint bar below has every key).
    static func footer(_ pane: TranscriptPane, keys: KeyBindings) -> String {
        switch pane.kind {
        case .episode: " Enter plays from the line · Esc back "
        case .search: " Enter plays from the hit · \(keys.key(.transcript)) its transcript · Esc back "
        }
    }

    /// The lines from the scroll position on, `rows` of them, the selected one wrapped whole.
    private static func drawLines(_ pane: inout TranscriptPane, into grid: inout Grid, x: Int, y: Int, width: Int, rows: Int) {
        let textWidth = max(4, width - timeWidth - 2)
        let selectedLines =
            pane.lines.indices.contains(pane.selected)
            ? Array(DisplayWidth.wrap(pane.lines[pane.selected].text, to: pane.lines[pane.selected].isHeading ? width : textWidth).prefix(rows)) : []
        let tall = max(1, selectedLines.count)
        if pane.selected < pane.scroll { pane.scroll = pane.selected }
        if pane.selected - pane.scroll + tall > rows { pane.scroll = max(0, pane.selected - (rows - tall)) }
        pane.scroll = max(0, min(pane.scroll, pane.lines.count - 1))
        var row = 0, index = pane.scroll
        while row < rows, index < pane.lines.count {
            let line = pane.lines[index]
            if line.isHeading {
                grid.put(DisplayWidth.truncate(line.text, to: width), x: x, y: y + row, style: .bold)
                row += 1
            } else if index == pane.selected {
                for (i, part) in selectedLines.enumerated() where row < rows {
                    let time = i == 0 ? timeText(line.start) : String(repeating: " ", count: timeWidth)
                    grid.put(time + "  " + part, x: x, y: y + row, style: .selected, cells: width)
                    row += 1
                }
            } else {
                var col = grid.put(timeText(line.start), x: x, y: y + row, style: .dim) + 2
                let (text, marks) = excerpt(line, width: textWidth)
                let scalars = Array(text.unicodeScalars)
                var at = 0
                for range in marks + [scalars.count..<scalars.count] {
                    let lower = min(max(at, range.lowerBound), scalars.count), upper = min(max(lower, range.upperBound), scalars.count)
                    if lower > at { col = grid.put(String(String.UnicodeScalarView(scalars[at..<lower])), x: col, y: y + row, style: .normal) }
                    if upper > lower { col = grid.put(String(String.UnicodeScalarView(scalars[lower..<upper])), x: col, y: y + row, style: .accent) }
                    at = upper
                }
                row += 1
            }
            index += 1
        }
    }

    /// "  0:12:34", right-aligned in the time column; blanks for a line without a time.
    static func timeText(_ start: Double?) -> String {
        let time = start.map(CueTime.text) ?? ""
        return String(repeating: " ", count: max(0, timeWidth - time.count)) + time
    }

    /// A line cut to `width` cells: from a little before its first mark when that would fall off the
    /// end ("…" says text was left out), with the marks moved to match.
    static func excerpt(_ line: TranscriptPane.Line, width: Int) -> (text: String, marks: [Range<Int>]) {
        let scalars = Array(line.text.unicodeScalars)
        var from = 0
        if let first = line.marks.first, first.lowerBound <= scalars.count,
            DisplayWidth.of(String(String.UnicodeScalarView(scalars[..<first.lowerBound]))) > width / 2
        {
            from = max(0, first.lowerBound - width / 4)
            while from > 0, from < first.lowerBound, scalars[from - 1] != " " { from += 1 }
        }
        let prefix = from > 0 ? "…" : ""
        let shift = prefix.unicodeScalars.count - from
        let text = DisplayWidth.truncate(prefix + String(String.UnicodeScalarView(scalars[from...])), to: width)
        let length = text.unicodeScalars.count
        let marks = line.marks.compactMap { range -> Range<Int>? in
            let lower = range.lowerBound + shift, upper = min(range.upperBound + shift, length)
            return lower >= prefix.unicodeScalars.count && lower < upper ? lower..<upper : nil
        }
        return (text, marks)
    }
}
