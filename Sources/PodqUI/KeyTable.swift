import PodqCore

/// The TUI's keys as people read them: each row's keys, a brief text (the help overlay, the man page)
/// and a full one (the README). The overlay draws it, and the README's and the man page's key tables
/// are generated from it (`make docs`; DocsTests fails while one is stale). What a key *does* is
/// ``KeyBindings/action(for:)`` and ``TUIController``.
public enum KeyTable {
    /// One part of a row's key column: keys that cannot move (arrows, Tab, Esc) or actions, whose
    /// letters are the config's.
    public enum Part: Sendable {
        case fixed(String)
        case actions([KeyBindings.Action])
    }

    /// One row.
    public struct Row: Sendable {
        public let keys: [Part]
        /// For the overlay: one line. ` · ` separates what each key does.
        public let brief: String
        /// For the README: everything the keys do.
        public let full: String
    }

    /// The row's keys with `bindings`' letters: "p  Space", "↑ ↓  k j".
    public static func keys(_ row: Row, _ bindings: KeyBindings = KeyBindings()) -> String {
        row.keys.map { part in
            switch part {
            case .fixed(let text): text
            case .actions(let actions): actions.map { String(bindings.key($0)) }.joined(separator: " ")
            }
        }.joined(separator: "  ")
    }

    /// Every row, in the order the overlay shows them; it fits 24 lines.
    public static let rows: [Row] = [
        Row(
            keys: [.fixed("↑ ↓"), .actions([.up, .down])], brief: "move the selection",
            full:
                "move the selection; the mouse too: a click selects a row or opens a view (its tab), the wheel moves the selection (`mouse = false` in the config leaves the mouse to the terminal)"
        ),
        Row(keys: [.fixed("PgUp PgDn")], brief: "a page up / down", full: "a page up / down"),
        Row(keys: [.fixed("Home End"), .actions([.top, .bottom])], brief: "first / last row", full: "the first / last row"),
        Row(
            keys: [.fixed("Tab"), .actions([.downloads, .episodes, .podcasts])], brief: "Downloads / Episodes / Podcasts",
            full: "the Downloads / Episodes / Podcasts views (Tab: the next)"),
        Row(
            keys: [.fixed("Enter"), .actions([.open])], brief: "Episodes: queue it · Downloads: start it next · Podcasts: its episodes",
            full: "Episodes: queue the episode. Downloads: start it next. Podcasts: show its episodes"),
        Row(
            keys: [.actions([.cancel])], brief: "cancel the download: stop it, delete its partial file",
            full: "cancel the selected download: stop it, delete its partial file"),
        Row(
            keys: [.actions([.pause]), .fixed("Space")], brief: "pause / resume the download (the partial file is kept)",
            full: "pause / resume the selected download (the partial file is kept)"),
        Row(
            keys: [.actions([.retry]), .actions([.retryFailed])], brief: "retry a failed or cancelled download · retry every failed one",
            full: "retry a failed or cancelled download / retry every failed download"),
        Row(
            keys: [.actions([.play]), .actions([.played])], brief: "play a completed download with the player · mark episodes played / not",
            full:
                "play the selected completed download with the configured player (the terminal is the player's until it exits) / Episodes view: mark the episode (or every marked one) played or not played: the state column says `played`, the Podcasts view counts NEW (never queued, not played) and DONE"
        ),
        Row(
            keys: [.actions([.transcript]), .actions([.searchTranscripts])],
            brief: "an episode's transcript · search every transcript; Enter plays from the line",
            full:
                "the selected episode's transcript, a line a cue with its time (from the store, the sidecar beside the file, or fetched from the feed's podcast:transcript link and kept) / type words and see where every transcript says them, newest episode first. In both: ↑↓ select a line, / finds words in the lines (n N: the next / previous), Enter plays the episode from that line's time (mpv follows the position as o does), t on a hit opens that episode's whole transcript there, Esc goes back"
        ),
        Row(
            keys: [.actions([.moveUp]), .actions([.moveDown]), .actions([.pauseAll])],
            brief: "move the download up / down in the queue · pause all / resume all",
            full: "move the selected download up / down in the queue / pause all / resume all"),
        Row(
            keys: [.actions([.moreJobs, .fewerJobs, .morePerHost, .fewerPerHost, .slower, .faster])],
            brief: "more / fewer at once · from one host · halve / double the speed limit (saved)",
            full:
                "more / fewer downloads at once; more / fewer at once from one host (the status line shows it); halve / double the speed limit all downloads share (`<` with none sets half the current speed). Each takes effect at once and is kept in the config"
        ),
        Row(
            keys: [.actions([.remove]), .actions([.clearCompleted])],
            brief: "remove the row (asks before deleting a file) · clear the completed rows",
            full:
                "remove the row (asks before deleting a completed file); on a podcast: unsubscribe / clear every completed row from the queue (the files stay)"),
        Row(
            keys: [.actions([.addFeed, .refresh, .sync, .queueNew])], brief: "add a feed · refresh the feeds · sync · queue a podcast's new or latest",
            full:
                "add a podcast: paste its feed URL, or type its name to search the directories (a list: Enter subscribes and shows its episodes, i tells what it is about, Esc goes back) / refresh every feed / sync with the phone's server now (podq sync; SYNC.md) / Podcasts view (or one podcast's episodes): queue its new episodes (Enter), or type N for the latest N; with podcasts marked, each of them"
        ),
        Row(
            keys: [.actions([.search, .next, .previous])], brief: "search titles and podcasts · the next / previous match",
            full:
                "search as you type, case and accents ignored (\"ist\" finds \"İstanbul\", \"ete\" finds \"Été\"): titles and podcasts contain the text, or (Episodes view) the show notes have words beginning with its words; the selection jumps to the first match, Enter keeps the search and says how many match, Esc goes back / the next / previous match, going round"
        ),
        Row(
            keys: [.actions([.filter]), .actions([.stateFilter]), .fixed("Esc")],
            brief: "filter by text · by state · Esc: clear the marks, then the filters",
            full:
                "filter rows by text (as you type) / show one state only, the next each time: Episodes new, in the queue, downloaded, failed, played; Downloads running, queued, paused, failed, completed; then all again / Esc: clear the marks, then the filters"
        ),
        Row(
            keys: [.actions([.sort]), .actions([.sortReverse])], brief: "sort by the next column · the other way round",
            full:
                "sort by the next column (Episodes: date, title, podcast, duration, size; Downloads: queue order, state, progress, title; Podcasts: title, last refresh, episodes) / the other way round"
        ),
        Row(
            keys: [.actions([.detail])], brief: "the row's detail: facts, file, URLs, show notes (↑↓ scroll, Esc closes)",
            full:
                "the selected row's detail: full title, podcast, date, duration, size, file, URLs and the tracking prefixes they go through, failure, chapters (those the feed links, for an episode not downloaded), and the show notes as plain text; ↑↓ PgUp PgDn scroll it, Esc closes it"
        ),
        Row(
            keys: [.actions([.mark]), .actions([.markAll])],
            brief: "mark the row · mark all shown; then p c r x and Enter act on every marked row",
            full:
                "mark the row (✓ before its title) and move down, again: unmark (Space marks too in Episodes and Podcasts) / mark every row shown (the filter's, the podcast's), again: none. Then p, Space, c, r and x act on every marked download they apply to (cancel and remove ask first), and Enter queues every marked episode"
        ),
        Row(keys: [.actions([.help])], brief: "this help", full: "the keys"),
        Row(
            keys: [.actions([.quit])], brief: "quit: downloads stop, partial files stay and resume next time",
            full: "quit at once: downloads stop, partial files stay, and they resume on the next start"),
    ]
}
