import FoundationEssentials
import Glibc
import PodqBase
import PodqCore

/// Draws a directory search over the table (the tab line above it, the status, message and hint lines
/// below it stay): a box with one line per show, the selected one highlighted, or the selected show's
/// description (`i`); "Searching…" until the answer comes.
enum DirectoryRenderer {
    /// The show lines the box holds on a screen `height` lines tall.
    static func visibleLines(height: Int) -> Int { max(1, height - 3 - 3) }

    static func render(_ pane: inout DirectoryPane, into grid: inout Grid) {
        let top = 1, bottom = grid.height - 4
        guard grid.width >= 12, bottom - top >= 2 else { return }
        let inner = grid.width - 2, textWidth = inner - 2
        grid.box(top: top, bottom: bottom, inner: inner)
        let shown = bottom - top - 1
        let footer: String
        if pane.showingAbout, let show = pane.selectedShow {
            grid.put(DisplayWidth.truncate(" \(show.title) ", to: inner - 2), x: 2, y: top, style: .bold)
            let lines = aboutLines(show, width: textWidth)
            pane.aboutScroll = min(max(0, pane.aboutScroll), max(0, lines.count - shown))
            for (i, line) in lines.dropFirst(pane.aboutScroll).prefix(shown).enumerated() {
                grid.put(line.text, x: 2, y: top + 1 + i, style: line.style)
            }
            footer = " ↑↓ scroll · Enter subscribes · Esc back to the list "
        } else {
            grid.put(DisplayWidth.truncate(" Find a podcast: “\(pane.words)” ", to: inner - 2), x: 2, y: top, style: .bold)
            if pane.loading {
                grid.put("Searching the podcast directories for “\(pane.words)”…", x: 2, y: top + 1, style: .dim)
            } else if pane.shows.isEmpty {
                let said = pane.failed ? (pane.note ?? "no directory answered") : "Nothing found for “\(pane.words)” (asked \(pane.answered))."
                for (i, line) in DisplayWidth.wrap(said + " a: search again · Esc: back", to: textWidth).prefix(shown).enumerated() {
                    grid.put(line, x: 2, y: top + 1 + i, style: pane.failed ? .failure : .normal)
                }
            } else {
                var rows = shown
                if let note = pane.note {
                    grid.put(DisplayWidth.truncate(note, to: textWidth), x: 2, y: bottom - 1, style: .failure)
                    rows -= 1
                }
                rows = max(1, rows)
                if pane.selected < pane.scroll { pane.scroll = pane.selected }
                if pane.selected >= pane.scroll + rows { pane.scroll = pane.selected - rows + 1 }
                for (i, show) in pane.shows.enumerated().dropFirst(pane.scroll).prefix(rows) {
                    let y = top + 1 + i - pane.scroll
                    let line = DisplayWidth.truncate(Self.line(show), to: textWidth)
                    let padded = line + String(repeating: " ", count: max(0, textWidth - DisplayWidth.of(line)))
                    grid.put(padded, x: 2, y: y, style: i == pane.selected ? .selected : .normal)
                }
            }
            footer = " ↑↓ select · Enter subscribe · i about · a search again · Esc back "
        }
        grid.put(DisplayWidth.truncate(footer, to: inner - 2), x: max(2, inner - DisplayWidth.of(footer)), y: bottom, style: .dim)
    }

    /// One show in the list: "Title — by Maker · 120 episodes · latest 2026-11-20 · iTunes, gpodder.net".
    static func line(_ show: DirectoryShow) -> String {
        var parts: [String] = []
        if !show.author.isEmpty { parts.append("by " + show.author) }
        if let episodes = show.episodes { parts.append("\(episodes) episode\(episodes == 1 ? "" : "s")") }
        if let latest = show.latest { parts.append("latest " + FeedDate.day(latest)) }
        parts.append(show.sources.compactMap { Directory(rawValue: $0)?.name }.joined(separator: ", "))
        return show.title + " — " + parts.joined(separator: " · ")
    }

    /// The description box's lines: the facts, the feed, then the description wrapped.
    static func aboutLines(_ show: DirectoryShow, width: Int) -> [(text: String, style: CellStyle)] {
        var lines: [(String, CellStyle)] = []
        for line in DisplayWidth.wrap(Self.line(show), to: width) { lines.append((line, .dim)) }
        lines.append((DisplayWidth.truncate("Feed: " + show.feedURL, to: width), .dim))
        lines.append(("", .normal))
        let about = show.description.isEmpty ? "No directory gave a description." : show.description
        for paragraph in about.components(separatedBy: "\n") {
            for line in DisplayWidth.wrap(paragraph, to: width) { lines.append((line, .normal)) }
        }
        return lines
    }
}
