import PodqCore

/// The keys of the modes other than the table's: typing a filter, a search, a feed URL or a count,
/// answering a question, scrolling the detail pane, and a row key with rows marked.
extension TUIController {
    /// A row key with rows marked in the Downloads view: it acts on every marked row it applies to.
    static func markedKey(_ action: KeyBindings.Action, ids: [Int64], snapshot: TUISnapshot, state: inout TUIState) -> [TUIAction] {
        let rows = ids.compactMap { id in snapshot.downloads.first { Int64($0.id) == id } }
        switch action {
        case .cancel:
            let cancellable = rows.filter { $0.state.applying(.cancel) != nil }.map { Int64($0.id) }
            guard !cancellable.isEmpty else {
                state.message = .init("None of the \(ids.count) marked downloads can be cancelled.")
                return []
            }
            state.mode = .confirming(.cancelMarked(ids: cancellable))
            return []
        case .remove:
            state.mode = .confirming(.removeMarked(ids: rows.map { Int64($0.id) }))
            return []
        default:  // r retries; p and Space resume when every marked row is paused, else pause
            let event: DownloadEvent = action == .retry ? .retry : rows.allSatisfy { $0.state == .paused } ? .resume : .pause
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
    static func placeholderDetail(view: TUIView, id: Int64, snapshot: TUISnapshot) -> Detail {
        let title: String =
            switch view {
            case .downloads: snapshot.downloads.first { Int64($0.id) == id }?.title ?? ItemKind.download.label(id)
            case .episodes: snapshot.library.position(of: id).map { snapshot.library.row(at: $0, state: .new).title } ?? ""
            case .podcasts: snapshot.podcasts.first { $0.id == id }?.title ?? ""
            }
        return Detail(view: view, id: id, title: title, isLoading: true)
    }

    /// Keys while the detail pane is open: they scroll it (PgUp/b and PgDn/Space a page); Esc, and the
    /// keys of `quit`, `detail` and `open` (Enter) close it.
    static func scrollDetail(_ key: Key, state: inout TUIState, pageSize: Int) {
        switch key {
        case .pageUp, .character("b"): state.detailScroll -= pageSize
        case .pageDown, .character(" "): state.detailScroll += pageSize
        case .escape: closeDetail(&state)
        default:
            if !scroll(key, &state.detailScroll, keys: state.keys, pageSize: pageSize) {
                switch state.keys.action(for: key) {
                case .open, .quit, .detail: closeDetail(&state)
                default: break
                }
            }
        }
        state.detailScroll = max(0, state.detailScroll)
    }

    /// Moves `offset` (a pane's first line shown) for a moving key: ↑↓ and their letters a line, PgUp
    /// PgDn a page, Home End and theirs to the ends (the renderer clamps the bottom), the wheel three.
    /// - Returns: false for any other key.
    static func scroll(_ key: Key, _ offset: inout Int, keys: KeyBindings, pageSize: Int) -> Bool {
        switch key {
        case .pageUp: offset -= pageSize
        case .pageDown: offset += pageSize
        case .mouse(.wheelUp, _, _): offset -= 3
        case .mouse(.wheelDown, _, _): offset += 3
        default:
            switch keys.action(for: key) {
            case .up: offset -= 1
            case .down: offset += 1
            case .top: offset = 0
            case .bottom: offset = Int.max / 2
            default: return false
            }
        }
        offset = max(0, offset)
        return true
    }

    private static func closeDetail(_ state: inout TUIState) {
        state.mode = .normal
        state.detail = nil
        state.detailLayout = nil
    }

    static func editSearch(_ key: Key, origin: Int64?, state: inout TUIState, snapshot: TUISnapshot) -> [TUIAction] {
        let view = state.view
        let ids = state.visibleIDs(view, in: snapshot)
        let text: String
        switch edit(state.search[view] ?? "", with: key) {
        case .finished:
            state.mode = .normal
            if view == .episodes, let needle = state.search[view] { state.message = searchSummary(needle, ids: ids, state: state, snapshot: snapshot) }
            return []
        case .cancelled:
            state.search[view] = nil
            state.mode = .normal
            if let origin, let index = ids.firstIndex(of: origin) { state.select(index, in: view, ids: ids) }
            return []
        case .ignored: return []
        case .changed(let typed): text = typed
        }
        state.search[view] = text.isEmpty ? nil : text
        selectFirstMatch(from: origin, state: &state, ids: ids, snapshot: snapshot)
        // The show notes are searched by the store, in the background: ``receive(_:state:snapshot:)``.
        return view == .episodes && !text.isEmpty ? [.searchNotes(text)] : []
    }

    /// As a search is typed: the first match from where the search started, going round.
    private static func selectFirstMatch(from origin: Int64?, state: inout TUIState, ids: [Int64], snapshot: TUISnapshot) {
        let view = state.view
        let start = origin.flatMap { ids.firstIndex(of: $0) } ?? 0
        guard let text = state.search[view] else {
            state.select(start, in: view, ids: ids)
            return
        }
        if let found = firstMatch(text, in: view, ids: ids, from: start, forward: true, snapshot: snapshot, notes: state.notesMatches) {
            state.select(found, in: view, ids: ids)
        }
    }

    /// The episodes whose show notes match a search, from the store. Used only while the search
    /// is still the same text; while it is being typed, the selection goes to the first match again
    /// (the notes may match before the first title does), and once it was typed, the count is told.
    public static func receive(_ matches: NotesMatches, state: inout TUIState, snapshot: TUISnapshot) {
        guard state.search[.episodes] == matches.needle else { return }
        let wasKnown = state.notesMatches?.needle == matches.needle
        state.notesMatches = matches
        guard state.view == .episodes else { return }
        let ids = state.visibleIDs(.episodes, in: snapshot)
        if case .searching(let origin) = state.mode {
            selectFirstMatch(from: origin, state: &state, ids: ids, snapshot: snapshot)
        } else if state.mode == .normal, !wasKnown {
            state.message = searchSummary(matches.needle, ids: ids, state: state, snapshot: snapshot)
        }
    }

    /// "“climate”: 12 episodes match (9 only in their show notes)."
    static func searchSummary(_ needle: String, ids: [Int64], state: TUIState, snapshot: TUISnapshot) -> TUIState.Message {
        let library = snapshot.library, matcher = library.matcher(needle)
        let notes = state.notesMatches?.needle == needle ? state.notesMatches : nil
        var inTitles = 0, onlyInNotes = 0
        for id in ids {
            if library.position(of: id).map({ matcher.matches($0, in: library) }) ?? false {
                inTitles += 1
            } else if notes?.contains(id) ?? false {
                onlyInNotes += 1
            }
        }
        let total = inTitles + onlyInNotes
        let indexing = notes?.isComplete == false ? " Older show notes are still being indexed: more may match in a minute." : ""
        guard total > 0 else {
            return .init("Nothing matches “\(needle)”" + (notes == nil ? " in the titles (the show notes are being searched)." : "." + indexing))
        }
        let count = "“\(needle)”: \(total) " + (total == 1 ? "episode matches" : "episodes match")
        return .init(
            notes == nil
                ? count + " by title (the show notes are being searched)."
                : count + " (\(onlyInNotes) only in the show notes; n and N go through them)." + indexing)
    }

    /// The index of the first row of `ids` from `start` on (going round) whose title (or podcast)
    /// contains `needle`, case-insensitive, or (episodes) whose show notes match it (`notes`).
    static func firstMatch(
        _ needle: String, in view: TUIView, ids: [Int64], from start: Int, forward: Bool, snapshot: TUISnapshot,
        notes: NotesMatches? = nil
    ) -> Int? {
        guard !ids.isEmpty else { return nil }
        let matches: (Int64) -> Bool
        switch view {
        case .episodes:
            let library = snapshot.library, matcher = library.matcher(needle)
            let notes = notes?.needle == needle ? notes : nil
            matches = { id in (library.position(of: id).map { matcher.matches($0, in: library) } ?? false) || (notes?.contains(id) ?? false) }
        case .downloads:
            let folded = SearchFold.fold(needle)
            let titles = Dictionary(snapshot.downloads.map { (Int64($0.id), $0.title) }, uniquingKeysWith: { a, _ in a })
            matches = { titles[$0].map { SearchFold.fold($0).contains(folded) } ?? false }
        case .podcasts:
            let folded = SearchFold.fold(needle)
            let titles = Dictionary(snapshot.podcasts.map { ($0.id, $0.title) }, uniquingKeysWith: { a, _ in a })
            matches = { titles[$0].map { SearchFold.fold($0).contains(folded) } ?? false }
        }
        let count = ids.count
        var i = ((start % count) + count) % count
        for _ in 0..<count {
            if matches(ids[i]) { return i }
            i = forward ? (i + 1) % count : (i - 1 + count) % count
        }
        return nil
    }

    static func editFilter(_ key: Key, state: inout TUIState) {
        var text = state.filter[state.view] ?? ""
        switch edit(text, with: key) {
        case .finished: state.mode = .normal
        case .cancelled:
            text = ""
            state.mode = .normal
        case .changed(let typed): text = typed
        case .ignored: break
        }
        state.filter[state.view] = text.isEmpty ? nil : text
    }

    /// `Q`'s question: digits for the latest N, Enter for every new episode, Esc for nothing.
    static func editQueueCount(_ key: Key, podcasts: [Int64], title: String, count: String, state: inout TUIState) -> [TUIAction] {
        switch edit(count, with: key, accepting: { $0.isASCII && $0.isNumber && count.count < 5 }) {
        case .cancelled:
            state.mode = .normal
        case .finished:
            state.mode = .normal
            state.marked[.podcasts] = nil
            return [.queueFromPodcasts(ids: podcasts, latest: Int(count).flatMap { $0 > 0 ? $0 : nil })]
        case .changed(let typed): state.mode = .queueingFrom(podcasts: podcasts, title: title, count: typed)
        case .ignored: break
        }
        return []
    }

    static func editFeedURL(_ key: Key, text: String, state: inout TUIState) -> [TUIAction] {
        switch edit(text, with: key) {
        case .cancelled:
            state.mode = .normal
        case .finished:
            state.mode = .normal
            let url = text.trimmingASCIIWhitespace
            guard !url.isEmpty else { return [] }
            if DirectoryPane.isWords(url) {
                let words = url.split(separator: " ").joined(separator: " ")
                state.directory = DirectoryPane(words: words)
                state.mode = .directory
                return [.searchDirectory(words)]
            }
            return [.addFeed(url: url)]
        case .changed(let typed): state.mode = .addingFeed(typed)
        case .ignored: break
        }
        return []
    }

    /// A key in a directory search's results: ↑↓ (and the `up`/`down` letters) select, PgUp/PgDn a page,
    /// Enter subscribes, the `detail` key opens the show's description (↑↓ then scroll it), the
    /// `addFeed` key asks again, Esc goes back (from the description to the list, from the list to the
    /// view it was opened over).
    static func directoryKey(_ key: Key, state: inout TUIState, pageSize: Int) -> [TUIAction] {
        guard var pane = state.directory else {
            state.mode = .normal
            return []
        }
        defer { if state.mode == .directory { state.directory = pane } }
        func leave() {
            state.mode = .normal
            state.directory = nil
        }
        switch key {
        case .escape:
            if pane.showingAbout { pane.showingAbout = false } else { leave() }
            return []
        case .pageUp:
            if pane.showingAbout { pane.aboutScroll -= pageSize } else { pane.selected = max(0, pane.selected - pageSize) }
        case .pageDown:
            if pane.showingAbout { pane.aboutScroll += pageSize } else { pane.selected = max(0, min(pane.shows.count - 1, pane.selected + pageSize)) }
        default:
            switch state.keys.action(for: key) {
            case .up:
                if pane.showingAbout { pane.aboutScroll = max(0, pane.aboutScroll - 1) } else { pane.selected = max(0, pane.selected - 1) }
            case .down:
                if pane.showingAbout { pane.aboutScroll += 1 } else { pane.selected = max(0, min(pane.shows.count - 1, pane.selected + 1)) }
            case .top: pane.selected = 0
            case .bottom: pane.selected = max(0, pane.shows.count - 1)
            case .detail:
                guard pane.selectedShow != nil else { return [] }
                pane.showingAbout.toggle()
                pane.aboutScroll = 0
            case .open:
                guard let show = pane.selectedShow else { return [] }
                leave()
                return [.subscribeFound(url: show.feedURL, title: show.title)]
            case .addFeed:
                leave()
                state.mode = .addingFeed(pane.words)
            case .quit:
                leave()
            default: break
            }
        }
        return []
    }

    /// What a key does to a line being typed (a filter, a search, a feed URL, a count).
    enum LineEdit: Equatable {
        case changed(String), finished, cancelled, ignored
    }

    /// Enter finishes, Esc cancels, Backspace takes the last character off, and a character
    /// `accepting` takes is added; any other key is ignored.
    static func edit(_ text: String, with key: Key, accepting: (Character) -> Bool = { _ in true }) -> LineEdit {
        switch key {
        case .enter: .finished
        case .escape: .cancelled
        case .backspace: .changed(String(text.dropLast()))
        case .character(let ch) where accepting(ch): .changed(text + String(ch))
        default: .ignored
        }
    }

    static func answer(_ key: Key, to question: TUIState.Confirmation, state: inout TUIState) -> [TUIAction] {
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
