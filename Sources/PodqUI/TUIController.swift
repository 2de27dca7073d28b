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
            editSearch(key, origin: origin, state: &state, snapshot: snapshot)
            return []
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
            state.mode = .searching(origin: selectedID)
        case .character("n"), .character("N"):
            guard let needle = state.search[view], !needle.isEmpty else {
                state.message = .init("No search yet: \(state.keys.key(.search)) starts one.")
                return []
            }
            let forward = key == .character("n")
            let start = index ?? (forward ? -1 : ids.count)
            if let found = firstMatch(needle, in: view, ids: ids, from: start + (forward ? 1 : -1), forward: forward, snapshot: snapshot) {
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
            state.message = .init(state.stateFilter[view].map { "showing only \($0.rawValue) \(what) (F: the next state, Esc: all)" }
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
    private static func rowKey(_ key: Key, view: TUIView, id: Int64?, download: DownloadRow?, snapshot: TUISnapshot,
                               state: inout TUIState) -> [TUIAction] {
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

    /// A row key with rows marked in the Downloads view: it acts on every marked row it applies to.
    private static func markedKey(_ key: Key, ids: [Int64], snapshot: TUISnapshot, state: inout TUIState) -> [TUIAction] {
        let rows = ids.compactMap { id in snapshot.downloads.first { Int64($0.id) == id } }
        switch key {
        case .character("c"):
            let cancellable = rows.filter { $0.state.applying(.cancel) != nil }.map { Int64($0.id) }
            guard !cancellable.isEmpty else {
                state.message = .init("None of the \(ids.count) marked downloads can be cancelled.")
                return []
            }
            state.mode = .confirming(.cancelMarked(ids: cancellable))
            return []
        case .character("x"):
            state.mode = .confirming(.removeMarked(ids: rows.map { Int64($0.id) }))
            return []
        case .character("r"):
            let event = DownloadEvent.retry
            let retryable = rows.filter { $0.state.applying(event) != nil }.map { Int64($0.id) }
            state.marked[.downloads] = nil
            guard !retryable.isEmpty else {
                state.message = .init("None of the \(ids.count) marked downloads can be retried.")
                return []
            }
            return [.performMany(event, ids: retryable)]
        default:  // p, Space: resume when every marked row is paused, else pause
            let event: DownloadEvent = rows.allSatisfy { $0.state == .paused } ? .resume : .pause
            let applicable = rows.filter { $0.state.applying(event) != nil }.map { Int64($0.id) }
            state.marked[.downloads] = nil
            guard !applicable.isEmpty else {
                state.message = .init("None of the \(ids.count) marked downloads can be \(event.verb).")
                return []
            }
            return [.performMany(event, ids: applicable)]
        }
    }

    /// The detail pane before its contents arrive: the row's title, from the snapshot.
    private static func placeholderDetail(view: TUIView, id: Int64, snapshot: TUISnapshot) -> Detail {
        let title: String = switch view {
        case .downloads: snapshot.downloads.first { Int64($0.id) == id }?.title ?? "#\(id)"
        case .episodes: snapshot.library.position(of: id).map { snapshot.library.row(at: $0, state: "").title } ?? ""
        case .podcasts: snapshot.podcasts.first { $0.id == id }?.title ?? ""
        }
        return Detail(view: view, id: id, title: title, isLoading: true)
    }

    /// Keys while the detail pane is open: they scroll it; Esc, q, i and Enter close it.
    private static func scrollDetail(_ key: Key, state: inout TUIState, pageSize: Int) {
        var key = key
        if case .character(let pressed) = key, let canonical = state.keys.canonical(pressed) { key = .character(canonical) }
        switch key {
        case .up, .character("k"): state.detailScroll -= 1
        case .down, .character("j"): state.detailScroll += 1
        case .pageUp, .character("b"): state.detailScroll -= pageSize
        case .pageDown, .character(" "): state.detailScroll += pageSize
        case .home, .character("g"): state.detailScroll = 0
        case .end, .character("G"): state.detailScroll = Int.max / 2  // the renderer clamps it
        case .escape, .enter, .character("q"), .character("i"):
            state.mode = .normal
            state.detail = nil
        default: break
        }
        state.detailScroll = max(0, state.detailScroll)
    }

    private static func editSearch(_ key: Key, origin: Int64?, state: inout TUIState, snapshot: TUISnapshot) {
        let view = state.view
        var text = state.search[view] ?? ""
        let ids = state.visibleIDs(view, in: snapshot)
        switch key {
        case .enter:
            state.mode = .normal
            return
        case .escape:
            state.search[view] = nil
            state.mode = .normal
            if let origin, let index = ids.firstIndex(of: origin) { state.select(index, in: view, ids: ids) }
            return
        case .backspace: if !text.isEmpty { text.removeLast() }
        case .character(let ch): text.append(ch)
        default: return
        }
        state.search[view] = text.isEmpty ? nil : text
        // As it is typed: the first match from where the search started, going round.
        let start = origin.flatMap { ids.firstIndex(of: $0) } ?? 0
        if text.isEmpty {
            state.select(start, in: view, ids: ids)
        } else if let found = firstMatch(text, in: view, ids: ids, from: start, forward: true, snapshot: snapshot) {
            state.select(found, in: view, ids: ids)
        }
    }

    /// The index of the first row of `ids` from `start` on (going round) whose title (or podcast)
    /// contains `needle`, case-insensitive.
    static func firstMatch(_ needle: String, in view: TUIView, ids: [Int64], from start: Int, forward: Bool, snapshot: TUISnapshot) -> Int? {
        guard !ids.isEmpty else { return nil }
        let matches: (Int64) -> Bool
        switch view {
        case .episodes:
            let library = snapshot.library, matcher = library.matcher(needle)
            matches = { id in library.position(of: id).map { matcher.matches($0, in: library) } ?? false }
        case .downloads:
            let folded = needle.lowercased()
            let titles = Dictionary(snapshot.downloads.map { (Int64($0.id), $0.title) }, uniquingKeysWith: { a, _ in a })
            matches = { titles[$0]?.lowercased().contains(folded) ?? false }
        case .podcasts:
            let folded = needle.lowercased()
            let titles = Dictionary(snapshot.podcasts.map { ($0.id, $0.title) }, uniquingKeysWith: { a, _ in a })
            matches = { titles[$0]?.lowercased().contains(folded) ?? false }
        }
        let count = ids.count
        var i = ((start % count) + count) % count
        for _ in 0..<count {
            if matches(ids[i]) { return i }
            i = forward ? (i + 1) % count : (i - 1 + count) % count
        }
        return nil
    }

    private static func editFilter(_ key: Key, state: inout TUIState) {
        var text = state.filter[state.view] ?? ""
        switch key {
        case .enter: state.mode = .normal
        case .escape:
            text = ""
            state.mode = .normal
        case .backspace: if !text.isEmpty { text.removeLast() }
        case .character(let ch): text.append(ch)
        default: break
        }
        state.filter[state.view] = text.isEmpty ? nil : text
    }

    /// `Q`'s question: digits for the latest N, Enter for every new episode, Esc for nothing.
    private static func editQueueCount(_ key: Key, podcasts: [Int64], title: String, count: String, state: inout TUIState) -> [TUIAction] {
        var count = count
        switch key {
        case .escape:
            state.mode = .normal
            return []
        case .enter:
            state.mode = .normal
            state.marked[.podcasts] = nil
            return [.queueFromPodcasts(ids: podcasts, latest: Int(count).flatMap { $0 > 0 ? $0 : nil })]
        case .backspace: if !count.isEmpty { count.removeLast() }
        case .character(let ch) where ch.isASCII && ch.isNumber && count.count < 5: count.append(ch)
        default: break
        }
        state.mode = .queueingFrom(podcasts: podcasts, title: title, count: count)
        return []
    }

    private static func editFeedURL(_ key: Key, text: String, state: inout TUIState) -> [TUIAction] {
        var text = text
        switch key {
        case .escape:
            state.mode = .normal
            return []
        case .enter:
            state.mode = .normal
            let url = text.trimmingASCIIWhitespace
            return url.isEmpty ? [] : [.addFeed(url: url)]
        case .backspace: if !text.isEmpty { text.removeLast() }
        case .character(let ch): text.append(ch)
        default: break
        }
        state.mode = .addingFeed(text)
        return []
    }

    private static func answer(_ key: Key, to question: TUIState.Confirmation, state: inout TUIState) -> [TUIAction] {
        switch (question, key) {
        case (.removeCompleted(let id, _), .character("y")): return [.remove(id: id, deletingFile: true)]
        case (.removeCompleted(let id, _), .character("k")): return [.remove(id: id, deletingFile: false)]
        case (.removePodcast(let id, _), .character("y")): return [.removePodcast(id: id)]
        case (.cancelMarked(let ids), .character("y")):
            state.marked[.downloads] = nil
            return [.performMany(.cancel, ids: ids)]
        case (.removeMarked(let ids), .character("y")):
            state.marked[.downloads] = nil
            return [.removeMany(ids: ids, deletingFiles: true)]
        case (.removeMarked(let ids), .character("k")):
            state.marked[.downloads] = nil
            return [.removeMany(ids: ids, deletingFiles: false)]
        default:
            state.message = .init("Nothing removed.")
            return []
        }
    }
}
