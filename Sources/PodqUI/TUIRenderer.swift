import PodqCore

/// Draws a TUI frame into a ``Grid`` from the state and a snapshot: the tab line, the column titles,
/// the table of the current view, the status line, the message line and the hint bar (and the help
/// overlay). Pure: render tests compare its text with what is expected.
public struct TUIRenderer: Sendable {
    /// Advances indeterminate bars.
    public var tick: Int

    public init(tick: Int = 0) { self.tick = tick }

    /// Lines that are not table rows: tabs, column titles, status, message, hints.
    public static let chromeLines = 5

    /// The number of table rows a terminal of `height` lines shows.
    public static func tableRows(height: Int) -> Int { max(0, height - chromeLines) }

    /// Renders a `width` × `height` frame. Adjusts the scroll position in `state` to keep the selection
    /// in view (that is all it changes).
    public func render(_ state: inout TUIState, _ snapshot: TUISnapshot, width: Int, height: Int) -> Grid {
        var grid = Grid(width: width, height: height)
        guard width > 0, height > 0 else { return grid }
        let view = state.view
        let ids = state.visibleIDs(view, in: snapshot)
        let selected = state.selection(view, ids: ids)
        // A long message takes up to a quarter of the screen from the table.
        let said = height >= 2 ? message(state, snapshot, selectedID: selected.map { ids[$0] }) : nil
        let lines = said.map { Self.messageLines($0.text, width: width, limit: max(1, height / 4)) } ?? []
        let extra = max(0, lines.count - 1)
        let rows = max(0, Self.tableRows(height: height) - extra)
        let top = state.scrollOffset(view, ids: ids, rows: rows)
        let shown = Array(ids.dropFirst(top).prefix(rows))
        let selectedOnScreen = selected.map { $0 - top }

        tabs(state, snapshot, into: &grid)
        if height >= 4 {
            // A marked row's title starts with a check mark.
            let marks = state.marked[view] ?? []
            func mark(_ title: String, _ id: Int64) -> String { marks.contains(id) ? "✓ " + title : title }
            switch view {
            case .downloads:
                let table = DownloadTableRenderer(tick: tick)
                table.header(into: &grid, y: 1)
                var rows = Self.rows(snapshot.downloads, shown) { Int64($0.id) }
                for i in rows.indices { rows[i].title = mark(rows[i].title, Int64(rows[i].id)) }
                table.render(rows, into: &grid, y: 2, selected: selectedOnScreen)
            case .episodes:
                let library = snapshot.library
                var rows = shown.compactMap { id in library.position(of: id).map { library.row(at: $0, state: snapshot.episodeState(id)) } }
                for i in rows.indices { rows[i].title = mark(rows[i].title, rows[i].id) }
                ListRenderer.episodes(rows, into: &grid, y: 1, selected: selectedOnScreen)
            case .podcasts:
                var rows = Self.rows(snapshot.podcasts, shown) { $0.id }
                let counts = snapshot.podcastCounts()
                for i in rows.indices {
                    rows[i].title = mark(rows[i].title, rows[i].id)
                    rows[i].newEpisodes = counts[rows[i].id]?.new
                    rows[i].downloaded = counts[rows[i].id]?.downloaded
                }
                ListRenderer.podcasts(rows, into: &grid, y: 1, selected: selectedOnScreen)
            }
            if ids.isEmpty {
                grid.put(emptyText(view, state, loading: snapshot.libraryLoading, subscribed: !snapshot.podcasts.isEmpty), x: 2, y: 3, style: .dim)
            }
        }
        // The box ends above the status line, which a long message pushes up.
        if state.mode == .detail, let detail = state.detail { DetailRenderer.render(detail, state: &state, into: &grid, bottom: height - 4 - extra) }
        if state.mode == .directory, var pane = state.directory {
            DirectoryRenderer.render(&pane, into: &grid)
            state.directory = pane
        }
        if state.mode == .transcript || (state.transcript != nil && { if case .askingTranscriptWords = state.mode { true } else { false } }()),
            var pane = state.transcript
        {
            TranscriptRenderer.render(&pane, into: &grid, keys: state.keys)
            state.transcript = pane
        }
        let marked = state.marked[view].map { marks in ids.lazy.filter { marks.contains($0) }.count } ?? 0
        if height >= 3 {
            grid.put(
                status(snapshot, view: view, count: ids.count, selected: selected, marked: marked, width: width, keys: state.keys), x: 0, y: height - 3 - extra,
                style: .header)
        }
        if let said {
            for (i, line) in lines.enumerated() { grid.put(line, x: 0, y: height - 2 - extra + i, style: said.style) }
        }
        let hintBar =
            state.mode == .directory
            ? directoryHints(width: width, keys: state.keys)
            : state.mode == .transcript ? transcriptHints(state.transcript, width: width, keys: state.keys) : hints(view, width: width, keys: state.keys)
        grid.put(hintBar, x: 0, y: height - 1, style: .dim)
        if state.mode == .help { HelpOverlay.render(into: &grid, keys: state.keys, scroll: &state.helpScroll) }
        return grid
    }

    /// The rows whose ids are `shown` (a screenful, in the rows' order, which is the order of `shown`),
    /// without copying the other rows.
    static func rows<Row>(_ all: [Row], _ shown: [Int64], id: (Row) -> Int64) -> [Row] {
        let wanted = Set(shown)
        var out: [Row] = []
        out.reserveCapacity(shown.count)
        for row in all where wanted.contains(id(row)) {
            out.append(row)
            if out.count == shown.count { break }
        }
        return out
    }

    /// The line of the first table row in every view (the tabs and the column titles above it).
    public static let firstRowLine = 2

    /// The tab line's labels and the cells each takes (a click there opens its view).
    public static func tabs(_ state: TUIState, _ snapshot: TUISnapshot) -> [(view: TUIView, label: String, cells: Range<Int>)] {
        var x = 0
        return TUIView.allCases.map { view in
            let count =
                switch view {
                case .downloads: snapshot.downloads.count
                case .episodes: state.episodesOf.map { snapshot.library.episodeCount(of: $0.id) } ?? snapshot.library.count
                case .podcasts: snapshot.podcasts.count
                }
            var label = " \(view.rawValue + 1) \(view.title)"
            if view == .episodes, let scope = state.episodesOf { label += ": " + DisplayWidth.truncate(scope.title, to: 24) }
            label += " (\(count)) "
            let width = DisplayWidth.of(label)
            defer { x += width + 1 }
            return (view, label, x..<(x + width))
        }
    }

    private func tabs(_ state: TUIState, _ snapshot: TUISnapshot, into grid: inout Grid) {
        var x = 0
        for tab in Self.tabs(state, snapshot) {
            x = grid.put(tab.label, x: tab.cells.lowerBound, y: 0, style: tab.view == state.view ? .selected : .normal) + 1
        }
        // What shapes the rows: the filter, the search, an order other than the first.
        var parts: [String] = []
        if let only = state.stateFilter[state.view] { parts.append("only " + only.rawValue) }
        if let filter = state.filter[state.view] { parts.append("filter: " + filter) }
        if let search = state.search[state.view] { parts.append("/" + search) }
        let order = state.order(state.view)
        if order != TUIState.Sort(TUIState.SortKey.keys(for: state.view)[0]) {
            parts.append("by " + order.key.rawValue + (order.reversed ? ", reversed" : ""))
        }
        if !parts.isEmpty {
            let text = " " + parts.joined(separator: " · ")
            grid.put(text, x: max(x, grid.width - DisplayWidth.of(text)), y: 0, style: .accent)
        }
    }

    /// The status line in `width` cells: whole parts only, the last ones left out when they do not fit
    /// (the first part is cut if it must be).
    private func status(
        _ snapshot: TUISnapshot, view: TUIView, count: Int, selected: Int?, marked: Int = 0, width: Int, keys: KeyBindings = KeyBindings()
    ) -> String {
        let t = snapshot.totals
        // Under a limit, the total shown is at most the limit: the downloads keep to it over every
        // second, and what the meter shows above it is reads arriving in bursts, not speed.
        var speed = Format.bytes(Int64.clamped(snapshot.rateLimit.map { min(t.speed, Double($0)) } ?? t.speed, in: 0...Int64.max)) + "/s"
        if let rate = snapshot.rateLimit { speed += " (max " + Format.bytes(Int64(rate)) + "/s)" }
        var parts = ["\(t.active)/\(snapshot.limit) active, \(snapshot.perHost) a host", speed, "\(t.queued) queued"]

        // Why they wait, and the key that lets more go: the cap counts downloads (a segmented one's
        // connections count as one), so "2 a host" with jobs to spare is the cap, not the network.
        if snapshot.waitingForHost > 0 {
            parts[2] += " (\(snapshot.waitingForHost) wait: \(snapshot.perHost) at once from one host, \(keys.key(.morePerHost)) raises it)"
        }
        if t.paused > 0 { parts.append("\(t.paused) paused") }
        parts.append("\(t.failed) failed")
        parts.append("\(t.completed) done")
        if view != .downloads || count > 0 { parts.append("row \(selected.map { $0 + 1 } ?? 0)/\(count)") }
        if marked > 0 { parts.append("\(marked) marked") }
        if t.total > 0 {
            // The overall gauge, last (a narrow screen loses it first): what the unfinished downloads
            // have of their whole size.
            let fraction = Double(t.received) / Double(t.total)
            let bar = ProgressBar.cells(fraction: fraction, width: 8)
            parts.append(
                "▕" + bar.filled + String(repeating: " ", count: bar.empty.count) + "▏ \(Int((fraction * 100).rounded(.down)))% of "
                    + Format.bytes(t.total))
        }
        var line = Self.fit(parts, width: width)
        // The speed's sparkline, where the parts left room: up to the last 30 seconds.
        let room = width - DisplayWidth.of(line) - 1
        if room >= 8, snapshot.speedHistory.count >= 2 {
            let spark = SpeedHistory.sparkline(snapshot.speedHistory, width: min(30, room))
            if !spark.isEmpty {
                parts[1] += " " + spark
                line = Self.fit(parts, width: width)
            }
        }
        return line
    }

    /// The parts joined by " · ", as many of them as fit in `width` cells.
    private static func fit(_ parts: [String], width: Int) -> String {
        var line = " " + parts[0]
        var used = DisplayWidth.of(line)
        for part in parts.dropFirst() {
            used += 3 + DisplayWidth.of(part)
            if used > width { break }
            line += " · " + part
        }
        return line
    }

    /// What the message line says: the prompt of the mode, else the last message, the queue's notice,
    /// or the selected row's error.
    private func message(_ state: TUIState, _ snapshot: TUISnapshot, selectedID: Int64?) -> (text: String, style: CellStyle)? {
        switch state.mode {
        case .filtering:
            return ("Filter: \(state.filter[state.view] ?? "")▏  Enter keeps it · Esc clears it", .accent)
        case .addingFeed(let text):
            return ("Add a podcast: \(text)▏  a feed URL, or words to search the directories · Enter · Esc cancels", .accent)
        case .confirming(.removeCompleted(_, let title)):
            return ("Remove \"\(title)\" from the queue? y: and delete its file · k: keep the file · any other key: cancel", .accent)
        case .confirming(.removePodcast(_, let title)):
            return ("Unsubscribe from \"\(title)\" (its episodes leave the list, files stay)? y: yes · any other key: no", .accent)
        case .confirming(.cancelMarked(let ids)):
            return (
                "Cancel \(ids.count) download\(ids.count == 1 ? "" : "s") and delete \(ids.count == 1 ? "its partial file" : "their partial files")? y: yes · any other key: no",
                .accent
            )
        case .confirming(.removeMarked(let ids)):
            return (
                "Remove \(ids.count) row\(ids.count == 1 ? "" : "s")? y: and delete completed files · k: keep the files · any other key: keep all",
                .accent
            )
        case .queueingFrom(_, let title, let count):
            return (
                "Queue from \(title): \(count.isEmpty ? "every new episode" : "the latest \(count)")▏  type a number for the latest N · Enter queues · Esc cancels",
                .accent
            )
        case .searching:
            return ("Search: \(state.search[state.view] ?? "")▏  Enter keeps it · Esc goes back · then n N: next / previous", .accent)
        case .directory:
            if state.message == nil, let pane = state.directory, !pane.loading, !pane.shows.isEmpty {
                return ("\(pane.shows.count) show\(pane.shows.count == 1 ? "" : "s") from \(pane.answered)", .normal)
            }
        case .askingTranscriptWords(let text):
            return ("Find in every transcript: \(text)▏  the words, in the order they were said · Enter · Esc cancels", .accent)
        case .transcript:
            if let pane = state.transcript, pane.typingFind {
                return ("Find in the lines: \(pane.find ?? "")▏  Enter keeps it · Esc goes back · then n N: next / previous", .accent)
            }
        case .normal, .help, .detail:
            break
        }
        if let message = state.message { return (message.text, message.isError ? .failure : .normal) }
        if let notice = state.notice { return (notice, .failure) }
        guard let id = selectedID else { return nil }
        switch state.view {
        case .downloads:
            if let row = snapshot.downloads.first(where: { Int64($0.id) == id }), let error = row.error, !error.isEmpty {
                return ("\(ItemKind.download.label(id)) \(row.state.name): \(error)", .failure)
            }
        case .podcasts:
            if let row = snapshot.podcasts.first(where: { $0.id == id }) {
                if let error = row.error { return ("last refresh failed: \(error)", .failure) }
                if let repairs = row.repairs { return ("read with repairs: \(repairs)", .normal) }
            }
        case .episodes:
            break
        }
        return nil
    }

    /// The message's lines at `width`: it wraps (a long message is never cut silently) onto at most
    /// `limit` lines; what still does not fit ends with "…".
    static func messageLines(_ text: String, width: Int, limit: Int) -> [String] {
        guard width > 1, limit > 0 else { return [] }
        if DisplayWidth.of(text) <= width { return [text] }
        var lines = DisplayWidth.wrap(text, to: width)
        if lines.count > limit {
            lines = Array(lines.prefix(limit))
            lines[limit - 1] = DisplayWidth.truncate(lines[limit - 1], to: width - 2) + " …"
        }
        return lines
    }

    private func emptyText(_ view: TUIView, _ state: TUIState, loading: Bool, subscribed: Bool) -> String {
        if loading && view != .downloads { return "Reading the library…" }
        // Rows are hidden, not missing: say which filter hides them and how to see them again.
        let only = state.stateFilter[view].map { "only \($0.rawValue) are shown" }
        let text = state.filter[view].map { "nothing matches “\($0)”" }
        if only != nil || text != nil {
            let both = [text, only].compactMap { $0 }.joined(separator: " and ")
            return "No rows: " + both + " (Esc clears the filter\(only != nil ? ", \(state.keys.key(.stateFilter)) shows the next state" : ""))."
        }
        if view == .episodes, let scope = state.episodesOf {
            return "\(scope.title) has no episodes yet (\(state.keys.key(.refresh)) refreshes the feeds; Esc shows every podcast's)."
        }
        switch view {
        case .downloads:
            return !subscribed
                ? "Nothing here yet. Press \(state.keys.key(.addFeed)) and type a podcast's name to find it (or paste its feed URL)."
                : "The queue is empty: Enter on an episode (\(state.keys.key(.episodes)) shows them) queues it."
        case .episodes: return "No episodes: press \(state.keys.key(.addFeed)) and type a podcast's name or its feed URL."
        case .podcasts: return "No subscriptions: press \(state.keys.key(.addFeed)) and type a podcast's name or its feed URL."
        }
    }

    /// The hint bar over a directory search's results: its own keys, not the view's beneath.
    func directoryHints(width: Int, keys: KeyBindings) -> String {
        let text = "↑↓ select  Enter subscribe  \(keys.key(.detail)) about  \(keys.key(.addFeed)) search again  Esc back"
        return DisplayWidth.truncate(text, to: width)
    }

    /// The hint bar over the Transcript pane: its own keys.
    func transcriptHints(_ pane: TranscriptPane?, width: Int, keys: KeyBindings) -> String {
        var text = "↑↓ select  Enter play from there  \(keys.key(.search)) find  \(keys.key(.next))/\(keys.key(.previous)) next/previous"
        if case .search = pane?.kind { text += "  \(keys.key(.transcript)) whole transcript" }
        return DisplayWidth.truncate(text + "  \(keys.key(.searchTranscripts)) search all  Esc back", to: width)
    }

    /// The hint bar of `view` in `width` cells: as many hints as fit, in order, and always `? help`
    /// and `q quit` at the end.
    public func hints(_ view: TUIView, width: Int, keys: KeyBindings = KeyBindings()) -> String {
        func k(_ action: KeyBindings.Action) -> String { String(keys.key(action)) }
        let items: [String] =
            switch view {
            case .downloads:
                [
                    "↑↓ select", "Tab view", "\(k(.addFeed)) add", "\(k(.pause)) pause", "\(k(.cancel)) cancel", "\(k(.retry)) retry", "Enter next",
                    "\(k(.moveUp))/\(k(.moveDown)) move", "\(k(.moreJobs))/\(k(.fewerJobs)) limit",
                    "\(k(.pauseAll)) all", "\(k(.remove)) remove", "\(k(.play)) play", "\(k(.search)) search",
                    "\(k(.filter)) filter", "\(k(.detail)) detail", "\(k(.mark)) mark", "\(k(.sort)) sort",
                    "\(k(.transcript)) transcript",
                ]
            case .episodes:
                [
                    "↑↓ select", "Tab view", "Enter queue", "\(k(.search)) search", "\(k(.filter)) filter", "Esc all",
                    "\(k(.addFeed)) add", "\(k(.refresh)) refresh", "\(k(.detail)) detail", "\(k(.transcript)) transcript",
                    "\(k(.searchTranscripts)) find said", "\(k(.mark)) mark", "\(k(.sort)) sort",
                ]
            case .podcasts:
                [
                    "↑↓ select", "Tab view", "Enter episodes", "\(k(.addFeed)) add", "\(k(.refresh)) refresh",
                    "\(k(.remove)) unsubscribe", "\(k(.search)) search", "\(k(.detail)) detail", "\(k(.sort)) sort",
                ]
            }
        let tail = "\(k(.help)) help  \(k(.quit)) quit"
        // Widths added up, not measured again on the joined text for every item.
        var text = ""
        var used = DisplayWidth.of(tail)
        for item in items {
            used += DisplayWidth.of(item) + 2
            if used > width { break }
            text += item + "  "
        }
        return text + tail
    }
}
