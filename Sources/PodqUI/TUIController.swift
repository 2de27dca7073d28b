import PodqCore

/// Turns keys into changes of the ``TUIState`` and into ``TUIAction``s for the session to carry out.
/// Pure: no I/O, so every key of the README's table is tested without a terminal.
public enum TUIController {
    /// Handles `key`. `pageSize` is the number of table rows on screen (PgUp/PgDn).
    public static func handle(_ key: Key, state: inout TUIState, snapshot: TUISnapshot, pageSize: Int) -> [TUIAction] {
        switch state.mode {
        case .help:
            state.mode = .normal  // any key closes the overlay
            return []
        case .detail:
            if case .mouse(let action, _, _) = key {
                state.detailScroll = max(0, state.detailScroll + (action == .wheelUp ? -3 : action == .wheelDown ? 3 : 0))
                return []
            }
            scrollDetail(key, state: &state, pageSize: max(1, pageSize))
            return []
        case .filtering:
            editFilter(key, state: &state)
            return []
        case .searching(let origin):
            return editSearch(key, origin: origin, state: &state, snapshot: snapshot)
        case .addingFeed(let text):
            return editFeedURL(key, text: text, state: &state)
        case .queueingFrom(let podcasts, let title, let count):
            return editQueueCount(key, podcasts: podcasts, title: title, count: count, state: &state)
        case .confirming(let question):
            state.mode = .normal
            return answer(key, to: question, state: &state)
        case .normal:
            state.message = nil
            // A remapped letter acts as its action's default letter; an action's old letter does nothing.
            var key = key
            if case .character(let pressed) = key {
                guard let canonical = state.keys.canonical(pressed) else { return [] }
                key = .character(canonical)
            }
            return normal(key, state: &state, snapshot: snapshot, pageSize: max(1, pageSize))
        }
    }

    private static func normal(_ key: Key, state: inout TUIState, snapshot: TUISnapshot, pageSize: Int) -> [TUIAction] {
        let view = state.view
        let ids = state.visibleIDs(view, in: snapshot)
        let index = state.selection(view, ids: ids)
        let selectedID = index.map { ids[$0] }
        let download = view == .downloads ? selectedID.flatMap { id in snapshot.downloads.first { Int64($0.id) == id } } : nil

        switch key {
        case .up, .character("k"): state.select((index ?? 0) - 1, in: view, ids: ids)
        case .down, .character("j"): state.select((index ?? -1) + 1, in: view, ids: ids)
        case .pageUp: state.select((index ?? 0) - pageSize, in: view, ids: ids)
        case .pageDown: state.select((index ?? 0) + pageSize, in: view, ids: ids)
        case .home, .character("g"): state.select(0, in: view, ids: ids)
        case .end, .character("G"): state.select(ids.count - 1, in: view, ids: ids)
        case .tab: state.view = view.next
        case .mouse(.wheelUp, _, _): state.select((index ?? 0) - 3, in: view, ids: ids)
        case .mouse(.wheelDown, _, _): state.select((index ?? 0) + 3, in: view, ids: ids)
        case .mouse(.click, let x, let y):
            if y == 0, let tab = TUIRenderer.tabs(state, snapshot).first(where: { $0.cells.contains(x) }) {
                state.view = tab.view
            } else if y >= TUIRenderer.firstRowLine, y - TUIRenderer.firstRowLine < pageSize {
                let row = (state.scroll[view] ?? 0) + y - TUIRenderer.firstRowLine
                if row < ids.count { state.select(row, in: view, ids: ids) }
            }
        case .character("1"): state.view = .downloads
        case .character("2"): state.view = .episodes
        case .character("3"): state.view = .podcasts
        case .character("q"):
            state.quit = true
            return [.quit]
        case .character("?"): state.mode = .help
        case .character("f"): state.mode = .filtering
        case .character("/"):
            state.search[view] = nil
            if view == .episodes { state.notesMatches = nil }
            state.mode = .searching(origin: selectedID)
        case .character("n"), .character("N"):
            guard let needle = state.search[view], !needle.isEmpty else {
                state.message = .init("No search yet: \(state.keys.key(.search)) starts one.")
                return []
            }
            let forward = key == .character("n")
            let start = index ?? (forward ? -1 : ids.count)
            if let found = firstMatch(
                needle, in: view, ids: ids, from: start + (forward ? 1 : -1), forward: forward, snapshot: snapshot,
                notes: state.notesMatches)
            {
                state.select(found, in: view, ids: ids)
                if forward ? found <= start : found >= start {
                    state.message = .init("The search went round to the \(forward ? "top" : "bottom").")
                }
            } else {
                state.message = .init("Nothing matches “\(needle)”.")
            }
        case .character("s"):
            let keys = TUIState.SortKey.keys(for: view)
            let now = state.order(view).key
            let next = keys[((keys.firstIndex(of: now) ?? 0) + 1) % keys.count]
            state.sort[view] = .init(next)
            state.message = .init("sorted by \(next.rawValue)")
        case .character("S"):
            var order = state.order(view)
            order.reversed.toggle()
            state.sort[view] = order
            state.message = .init("sorted by \(order.key.rawValue)" + (order.reversed ? ", the other way round" : ""))
        case .character("a"): state.mode = .addingFeed("")
        case .character("u"): return [.refreshFeeds]
        case .character("+"): return [.changeLimit(by: 1)]
        case .character("-"): return [.changeLimit(by: -1)]
        case .character("]"): return [.changePerHost(by: 1)]
        case .character("F"):
            let filters = TUIState.StateFilter.filters(for: view)
            guard !filters.isEmpty else { return [] }
            let next = state.stateFilter[view].flatMap { filters.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
            state.stateFilter[view] = next < filters.count ? filters[next] : nil
            let what = view == .episodes ? "episodes" : "downloads"
            state.message = .init(
                state.stateFilter[view].map { "showing only \($0.rawValue) \(what) (F: the next state, Esc: all)" }
                    ?? "showing \(what) in every state")
        case .character("m"):
            guard view == .episodes, let id = selectedID else {
                state.message = .init("m marks episodes played: in the Episodes view (\(state.keys.key(.episodes))).")
                return []
            }
            let marked = state.markedIDs(.episodes, in: snapshot)
            let ids = marked.isEmpty ? [id] : marked
            state.marked[.episodes] = nil
            return [.setPlayed(ids: ids, played: !ids.allSatisfy(snapshot.isPlayed))]
        case .character("R"):
            let failed = snapshot.downloads.filter { if case .failed = $0.state { true } else { false } }.map { Int64($0.id) }
            guard !failed.isEmpty else {
                state.message = .init("No download has failed.")
                return []
            }
            return [.performMany(.retry, ids: failed)]
        case .character("C"):
            let completed = snapshot.downloads.filter { $0.state == .completed }.map { Int64($0.id) }
            guard !completed.isEmpty else {
                state.message = .init("No completed row to clear.")
                return []
            }
            return [.removeMany(ids: completed, deletingFiles: false)]
        case .character("Q"):
            guard view == .podcasts || view == .episodes, let scope = view == .podcasts ? selectedID : state.episodesOf?.id else {
                state.message = .init("Q queues a podcast's episodes: in the Podcasts view (\(state.keys.key(.podcasts))), or the episodes of one podcast.")
                return []
            }
            let marked = view == .podcasts ? state.markedIDs(.podcasts, in: snapshot) : []
            let ids = marked.isEmpty ? [scope] : marked
            let title = ids.count == 1 ? snapshot.podcasts.first { $0.id == ids[0] }?.title ?? "#\(ids[0])" : "\(ids.count) podcasts"
            state.mode = .queueingFrom(podcasts: ids, title: title, count: "")
        case .character("["): return [.changePerHost(by: -1)]
        case .character("<"): return [.changeRate(faster: false)]
        case .character(">"): return [.changeRate(faster: true)]
        case .character("P"):
            let anyRunnable = snapshot.downloads.contains { $0.state == .downloading || $0.state == .queued }
            return [.pauseAll(anyRunnable)]
        case .escape:
            // Marks go first; then the filter and the podcast shown.
            if state.marked[view]?.isEmpty == false {
                state.marked[view] = nil
                return []
            }
            state.filter[view] = nil
            state.stateFilter[view] = nil
            if view == .episodes { state.episodesOf = nil }
        case .character("i"):
            guard let id = selectedID else { return [] }
            state.detail = placeholderDetail(view: view, id: id, snapshot: snapshot)
            state.detailScroll = 0
            state.mode = .detail
            return [.loadDetail(view: view, id: id)]
        case .character(" ") where view != .downloads, .character("v"):
            guard let id = selectedID else { return [] }
            if state.marked[view, default: []].remove(id) == nil { state.marked[view, default: []].insert(id) }
            state.select((index ?? 0) + 1, in: view, ids: ids)
        case .character("*"):
            let shown = Set(ids)
            state.marked[view] = shown.isSubset(of: state.marked[view] ?? []) ? nil : shown
        case .enter where view == .episodes && !state.markedIDs(view, in: snapshot).isEmpty,
            .character("d") where view == .episodes && !state.markedIDs(view, in: snapshot).isEmpty:
            let marked = state.markedIDs(view, in: snapshot)
            state.marked[view] = nil
            return [.queueEpisodes(ids: marked)]
        case .character("c") where view == .downloads && !state.markedIDs(view, in: snapshot).isEmpty,
            .character("p") where view == .downloads && !state.markedIDs(view, in: snapshot).isEmpty,
            .character(" ") where view == .downloads && !state.markedIDs(view, in: snapshot).isEmpty,
            .character("r") where view == .downloads && !state.markedIDs(view, in: snapshot).isEmpty,
            .character("x") where view == .downloads && !state.markedIDs(view, in: snapshot).isEmpty:
            return markedKey(key, ids: state.markedIDs(view, in: snapshot), snapshot: snapshot, state: &state)
        case .enter, .character("d"):
            return open(view: view, id: selectedID, snapshot: snapshot, state: &state)
        case .character("c"), .character("p"), .character(" "), .character("r"), .character("K"), .character("J"), .character("x"),
            .character("o"):
            return rowKey(key, view: view, id: selectedID, download: download, snapshot: snapshot, state: &state)
        default:
            break
        }
        return []
    }

    /// Enter / d: start next, queue the episode, or open a podcast's episodes.
    private static func open(view: TUIView, id: Int64?, snapshot: TUISnapshot, state: inout TUIState) -> [TUIAction] {
        guard let id else { return [] }
        switch view {
        case .downloads:
            return [.startNext(id: id)]
        case .episodes:
            return [.queueEpisode(id: id)]
        case .podcasts:
            guard let podcast = snapshot.podcasts.first(where: { $0.id == id }) else { return [] }
            state.episodesOf = .init(id: podcast.id, title: podcast.title)
            state.filter[.episodes] = nil
            state.view = .episodes
            return []
        }
    }

    /// The keys that act on the selected download (and `x` on a podcast).
    private static func rowKey(
        _ key: Key, view: TUIView, id: Int64?, download: DownloadRow?, snapshot: TUISnapshot,
        state: inout TUIState
    ) -> [TUIAction] {
        if view == .podcasts, key == .character("x"), let id, let podcast = snapshot.podcasts.first(where: { $0.id == id }) {
            state.mode = .confirming(.removePodcast(id: id, title: podcast.title))
            return []
        }
        guard view == .downloads else {
            state.message = .init("That key works on the Downloads view (press \(state.keys.key(.downloads))).")
            return []
        }
        guard let id, let download else { return [] }
        let event: DownloadEvent
        switch key {
        case .character("c"): event = .cancel
        case .character("p"), .character(" "): event = download.state == .paused ? .resume : .pause
        case .character("r"): event = .retry
        case .character("o"):
            guard download.state == .completed else {
                state.message = .init("#\(id) is \(download.state.name); only a completed download can be played.")
                return []
            }
            return [.play(id: id)]
        case .character("K"): return [.move(id: id, by: -1)]
        case .character("J"): return [.move(id: id, by: 1)]
        default:  // x
            if download.state == .completed {
                state.mode = .confirming(.removeCompleted(id: id, title: download.title))
                return []
            }
            return [.remove(id: id, deletingFile: false)]
        }
        guard download.state.applying(event) != nil else {
            state.message = .init("#\(id) is \(download.state.name); it cannot be \(event.verb).")
            return []
        }
        return [.perform(event, id: id)]
    }
}
