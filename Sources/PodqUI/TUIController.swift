import PodqCore

/// Turns keys into changes of the ``TUIState`` and into ``TUIAction``s for the session to carry out.
/// Pure: no I/O, so every key of the README's table is tested without a terminal.
public enum TUIController {
    /// Handles `key`. `pageSize` is the number of table rows on screen (PgUp/PgDn).
    public static func handle(_ key: Key, state: inout TUIState, snapshot: TUISnapshot, pageSize: Int) -> [TUIAction] {
        switch state.mode {
        case .help:
            // The moving keys scroll it (a small screen shows part of it); any other key closes it.
            if !scroll(key, &state.helpScroll, keys: state.keys, pageSize: max(1, pageSize)) { state.mode = .normal }
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
        case .directory:
            return directoryKey(key, state: &state, pageSize: max(1, pageSize))
        case .transcript:
            state.message = nil
            return transcriptKey(key, state: &state, pageSize: max(1, pageSize))
        case .askingTranscriptWords(let text):
            return editTranscriptWords(key, text: text, state: &state)
        case .queueingFrom(let podcasts, let title, let count):
            return editQueueCount(key, podcasts: podcasts, title: title, count: count, state: &state)
        case .confirming(let question):
            state.mode = .normal
            return answer(key, to: question, state: &state)
        case .normal:
            state.message = nil
            return normal(key, state: &state, snapshot: snapshot, pageSize: max(1, pageSize))
        }
    }

    /// The table's keys: those that cannot move (PgUp, PgDn, Tab, Esc, the mouse) as keys, every other
    /// through ``KeyBindings/action(for:)``, the one map from keys to actions. Space is `pause` in the
    /// Downloads view and `mark` in the others.
    private static func normal(_ key: Key, state: inout TUIState, snapshot: TUISnapshot, pageSize: Int) -> [TUIAction] {
        let view = state.view
        let ids = state.visibleIDs(view, in: snapshot)
        let index = state.selection(view, ids: ids)
        switch key {
        case .pageUp: state.select((index ?? 0) - pageSize, in: view, ids: ids)
        case .pageDown: state.select((index ?? 0) + pageSize, in: view, ids: ids)
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
        case .escape:
            // Marks go first; then the filter and the podcast shown.
            if state.marked[view]?.isEmpty == false {
                state.marked[view] = nil
                return []
            }
            state.filter[view] = nil
            state.stateFilter[view] = nil
            if view == .episodes { state.episodesOf = nil }
        default:
            let action = key == .character(" ") ? (view == .downloads ? .pause : .mark) : state.keys.action(for: key)
            guard let action else { return [] }
            return perform(action, state: &state, snapshot: snapshot, ids: ids, index: index)
        }
        return []
    }

    /// What `action` does in the table, on the selected row (`index` in `ids`) or the marked ones.
    private static func perform(_ action: KeyBindings.Action, state: inout TUIState, snapshot: TUISnapshot, ids: [Int64], index: Int?) -> [TUIAction] {
        let view = state.view
        let selectedID = index.map { ids[$0] }
        let download = view == .downloads ? selectedID.flatMap { id in snapshot.downloads.first { Int64($0.id) == id } } : nil
        let marked = state.markedIDs(view, in: snapshot)
        switch action {
        case .up: state.select((index ?? 0) - 1, in: view, ids: ids)
        case .down: state.select((index ?? -1) + 1, in: view, ids: ids)
        case .top: state.select(0, in: view, ids: ids)
        case .bottom: state.select(ids.count - 1, in: view, ids: ids)
        case .downloads: state.view = .downloads
        case .episodes: state.view = .episodes
        case .podcasts: state.view = .podcasts
        case .quit:
            state.quit = true
            return [.quit]
        case .help:
            state.mode = .help
            state.helpScroll = 0
        case .filter: state.mode = .filtering
        case .search:
            state.search[view] = nil
            if view == .episodes { state.notesMatches = nil }
            state.mode = .searching(origin: selectedID)
        case .next, .previous:
            guard let needle = state.search[view], !needle.isEmpty else {
                state.message = .init("No search yet: \(state.keys.key(.search)) starts one.")
                return []
            }
            let forward = action == .next
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
        case .sort:
            let keys = TUIState.SortKey.keys(for: view)
            let now = state.order(view).key
            let next = keys[((keys.firstIndex(of: now) ?? 0) + 1) % keys.count]
            state.sort[view] = .init(next)
            state.message = .init("sorted by \(next.rawValue)")
        case .sortReverse:
            var order = state.order(view)
            order.reversed.toggle()
            state.sort[view] = order
            state.message = .init("sorted by \(order.key.rawValue)" + (order.reversed ? ", the other way round" : ""))
        case .addFeed: state.mode = .addingFeed("")
        case .refresh: return [.refreshFeeds]
        case .sync: return [.sync]
        case .moreJobs: return [.changeLimit(by: 1)]
        case .fewerJobs: return [.changeLimit(by: -1)]
        case .morePerHost: return [.changePerHost(by: 1)]
        case .fewerPerHost: return [.changePerHost(by: -1)]
        case .slower: return [.changeRate(faster: false)]
        case .faster: return [.changeRate(faster: true)]
        case .stateFilter:
            let filters = TUIState.StateFilter.filters(for: view)
            guard !filters.isEmpty else { return [] }
            let next = state.stateFilter[view].flatMap { filters.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
            state.stateFilter[view] = next < filters.count ? filters[next] : nil
            let what = view == .episodes ? "episodes" : "downloads"
            state.message = .init(
                state.stateFilter[view].map { "showing only \($0.rawValue) \(what) (F: the next state, Esc: all)" }
                    ?? "showing \(what) in every state")
        case .played:
            guard view == .episodes, let id = selectedID else {
                state.message = .init("\(state.keys.key(.played)) marks episodes played: in the Episodes view (\(state.keys.key(.episodes))).")
                return []
            }
            let ids = marked.isEmpty ? [id] : marked
            state.marked[.episodes] = nil
            return [.setPlayed(ids: ids, played: !ids.allSatisfy(snapshot.isPlayed))]
        case .retryFailed:
            let failed = snapshot.downloads.filter { if case .failed = $0.state { true } else { false } }.map { Int64($0.id) }
            guard !failed.isEmpty else {
                state.message = .init("No download has failed.")
                return []
            }
            return [.performMany(.retry, ids: failed)]
        case .clearCompleted:
            let completed = snapshot.downloads.filter { $0.state == .completed }.map { Int64($0.id) }
            guard !completed.isEmpty else {
                state.message = .init("No completed row to clear.")
                return []
            }
            return [.removeMany(ids: completed, deletingFiles: false)]
        case .queueNew:
            guard view == .podcasts || view == .episodes, let scope = view == .podcasts ? selectedID : state.episodesOf?.id else {
                state.message = .init(
                    "\(state.keys.key(.queueNew)) queues a podcast's episodes: in the Podcasts view (\(state.keys.key(.podcasts))), or the episodes of one podcast."
                )
                return []
            }
            let chosen = view == .podcasts && !marked.isEmpty ? marked : [scope]
            let title =
                chosen.count == 1 ? snapshot.podcasts.first { $0.id == chosen[0] }?.title ?? ItemKind.podcast.label(chosen[0]) : "\(chosen.count) podcasts"
            state.mode = .queueingFrom(podcasts: chosen, title: title, count: "")
        case .pauseAll:
            let anyRunnable = snapshot.downloads.contains { $0.state == .downloading || $0.state == .queued }
            return [.pauseAll(anyRunnable)]
        case .transcript:
            return openTranscript(view: view, id: selectedID, snapshot: snapshot, state: &state)
        case .searchTranscripts:
            state.mode = .askingTranscriptWords("")
        case .detail:
            guard let id = selectedID else { return [] }
            state.detail = placeholderDetail(view: view, id: id, snapshot: snapshot)
            state.detailScroll = 0
            state.mode = .detail
            return [.loadDetail(view: view, id: id)]
        case .mark:
            guard let id = selectedID else { return [] }
            if state.marked[view, default: []].remove(id) == nil { state.marked[view, default: []].insert(id) }
            state.select((index ?? 0) + 1, in: view, ids: ids)
        case .markAll:
            let shown = Set(ids)
            state.marked[view] = shown.isSubset(of: state.marked[view] ?? []) ? nil : shown
        case .open where view == .episodes && !marked.isEmpty:
            state.marked[view] = nil
            return [.queueEpisodes(ids: marked)]
        case .cancel where view == .downloads && !marked.isEmpty, .pause where view == .downloads && !marked.isEmpty,
            .retry where view == .downloads && !marked.isEmpty, .remove where view == .downloads && !marked.isEmpty:
            return markedKey(action, ids: marked, snapshot: snapshot, state: &state)
        case .open:
            return open(view: view, id: selectedID, snapshot: snapshot, state: &state)
        case .cancel, .pause, .retry, .remove, .moveUp, .moveDown, .play:
            return rowKey(action, view: view, id: selectedID, download: download, snapshot: snapshot, state: &state)
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
        _ action: KeyBindings.Action, view: TUIView, id: Int64?, download: DownloadRow?, snapshot: TUISnapshot,
        state: inout TUIState
    ) -> [TUIAction] {
        if view == .podcasts, action == .remove, let id, let podcast = snapshot.podcasts.first(where: { $0.id == id }) {
            state.mode = .confirming(.removePodcast(id: id, title: podcast.title))
            return []
        }
        guard view == .downloads else {
            state.message = .init("That key works on the Downloads view (press \(state.keys.key(.downloads))).")
            return []
        }
        guard let id, let download else { return [] }
        let event: DownloadEvent
        switch action {
        case .cancel: event = .cancel
        case .pause: event = download.state == .paused ? .resume : .pause
        case .retry: event = .retry
        case .play:
            guard download.state == .completed else {
                state.message = .init("\(ItemKind.download.label(id)) is \(download.state.name); only a completed download can be played.")
                return []
            }
            return [.play(id: id)]
        case .moveUp: return [.move(id: id, by: -1)]
        case .moveDown: return [.move(id: id, by: 1)]
        default:  // remove
            if download.state == .completed {
                state.mode = .confirming(.removeCompleted(id: id, title: download.title))
                return []
            }
            return [.remove(id: id, deletingFile: false)]
        }
        guard download.state.applying(event) != nil else {
            state.message = .init("\(ItemKind.download.label(id)) is \(download.state.name); it cannot be \(event.verb).")
            return []
        }
        return [.perform(event, id: id)]
    }
}
