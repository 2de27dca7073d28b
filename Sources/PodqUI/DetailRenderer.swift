import PodqCore

/// Draws the detail pane: a box over the table (the tab line above it, the status, message and
/// hint lines below it stay), its lines from ``TUIState/detailScroll``, and where the reader is.
enum DetailRenderer {
    /// The number of text lines the box shows on a screen `height` lines tall.
    static func visibleLines(height: Int) -> Int { max(1, height - 3 - 3) }

    /// - Parameter bottom: the box's last line (above the status line).
    static func render(_ detail: Detail, state: inout TUIState, into grid: inout Grid, bottom: Int) {
        let top = 1  // the box's first line
        guard grid.width >= 12, bottom - top >= 2 else { return }
        let inner = grid.width - 2
        let textWidth = inner - 2
        if state.detailLayout?.width != textWidth || state.detailLayout?.detail != detail {
            let laid = detail.lines(width: textWidth)
            state.detailLayout = .init(detail: detail, width: textWidth, lines: laid.map(\.text), styles: laid.map(\.style))
        }
        let layout = state.detailLayout!
        let lines = layout.lines
        let shown = bottom - top - 1
        let maxScroll = max(0, lines.count - shown)
        state.detailScroll = min(max(0, state.detailScroll), maxScroll)
        let scroll = state.detailScroll
        grid.box(top: top, bottom: bottom, inner: inner)
        let heading = detail.view == .downloads ? " Download \(ItemKind.download.label(detail.id)) " : detail.view == .episodes ? " Episode " : " Podcast "
        grid.put(heading, x: 2, y: top, style: .bold)
        for i in 0..<max(0, min(shown, lines.count - scroll)) {
            grid.put(lines[scroll + i], x: 2, y: top + 1 + i, style: layout.styles[scroll + i])
        }
        let position = lines.count > shown ? " \(scroll + 1)–\(min(lines.count, scroll + shown)) of \(lines.count) lines ·" : ""
        let footer = position + " ↑↓ PgUp PgDn scroll · Esc closes "
        grid.put(DisplayWidth.truncate(footer, to: inner - 2), x: max(2, inner - DisplayWidth.of(footer)), y: bottom, style: .dim)
    }
}
