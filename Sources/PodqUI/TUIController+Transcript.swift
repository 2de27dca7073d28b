import PodqCore

/// The keys of the Transcript pane (issue 46): `t` opens the selected episode's transcript, `T` asks
/// for words and lists where every transcript says them; in the pane ↑↓ select a line, `/` finds words
/// in the lines (`n` `N` the next and previous), Enter plays the line's episode from the line's time,
/// `t` on a hit opens that episode's transcript there, Esc goes back (to the hits, then the table).
extension TUIController {
    /// `t` in the table: the transcript of the selected episode (Episodes) or download (Downloads).
    static func openTranscript(view: TUIView, id: Int64?, snapshot: TUISnapshot, state: inout TUIState) -> [TUIAction] {
        guard view != .podcasts else {
            state.message = .init(
                "\(state.keys.key(.transcript)) shows an episode's transcript: select one in the Episodes view (\(state.keys.key(.episodes))).")
            return []
        }
        guard let id else { return [] }
        let title = placeholderDetail(view: view, id: id, snapshot: snapshot).title
        state.transcript = TranscriptPane(kind: .episode(view: view, id: id, title: title))
        state.transcriptBack = nil
        state.mode = .transcript
        return [.loadTranscript(view: view, id: id)]
    }

    /// The words of `T`: Enter searches every transcript for them, Esc goes back.
    static func editTranscriptWords(_ key: Key, text: String, state: inout TUIState) -> [TUIAction] {
        switch edit(text, with: key) {
        case .cancelled:
            state.mode = state.transcript == nil ? .normal : .transcript
        case .finished:
            let words = text.split(separator: " ").joined(separator: " ")
            guard words.contains(where: { $0.isLetter || $0.isNumber }) else {
                state.mode = state.transcript == nil ? .normal : .transcript
                return []
            }
            state.transcriptBack = nil
            state.transcript = TranscriptPane(kind: .search(words: words))
            state.mode = .transcript
            return [.searchTranscripts(words)]
        case .changed(let typed): state.mode = .askingTranscriptWords(typed)
        case .ignored: break
        }
        return []
    }

    /// A key in the Transcript pane.
    static func transcriptKey(_ key: Key, state: inout TUIState, pageSize: Int) -> [TUIAction] {
        guard var pane = state.transcript else {
            state.mode = .normal
            return []
        }
        if pane.typingFind {
            typeFind(key, pane: &pane, state: &state)
            state.transcript = pane
            return []
        }
        switch key {
        case .escape:
            closeTranscript(&state)
            return []
        case .pageUp: pane.move(by: -pageSize)
        case .pageDown: pane.move(by: pageSize)
        case .mouse(.wheelUp, _, _): pane.move(by: -3)
        case .mouse(.wheelDown, _, _): pane.move(by: 3)
        default:
            switch state.keys.action(for: key) {
            case .up: pane.move(by: -1)
            case .down: pane.move(by: 1)
            case .top: pane.select(0, forward: true)
            case .bottom: pane.select(pane.lines.count - 1, forward: false)
            case .open, .play:
                guard let line = pane.selectedLine else { return [] }
                return [.playEpisode(id: line.episodeId, at: line.start.map { Int($0.rounded(.down)) })]
            case .search:
                pane.typingFind = true
                pane.find = nil
                pane.findOrigin = pane.selected
            case .next, .previous:
                findAgain(forward: state.keys.action(for: key) == .next, pane: &pane, state: &state)
            case .transcript:
                // On a search's hit: that episode's whole transcript, at the hit; Esc comes back.
                guard case .search = pane.kind, let line = pane.selectedLine else { break }
                let title = pane.lines[..<pane.selected].last(where: \.isHeading)?.text ?? ItemKind.episode.label(line.episodeId)
                state.transcriptBack = pane
                state.transcript = TranscriptPane(kind: .episode(view: .episodes, id: line.episodeId, title: title), at: line.start)
                return [.loadTranscript(view: .episodes, id: line.episodeId)]
            case .searchTranscripts:
                state.mode = .askingTranscriptWords("")
            case .quit:
                closeTranscript(&state)
                return []
            default: break
            }
        }
        state.transcript = pane
        return []
    }

    /// Esc in the pane: back to the hits a transcript was opened from, else to the table.
    private static func closeTranscript(_ state: inout TUIState) {
        if let back = state.transcriptBack {
            state.transcript = back
            state.transcriptBack = nil
        } else {
            state.transcript = nil
            state.mode = .normal
        }
    }

    /// Typing `/`'s words: the selection goes to the first line that has them from where `/` was
    /// pressed; Enter keeps them (n N go on), Esc goes back to that line.
    private static func typeFind(_ key: Key, pane: inout TranscriptPane, state: inout TUIState) {
        switch edit(pane.find ?? "", with: key) {
        case .finished:
            pane.typingFind = false
            if let find = pane.find, pane.firstLine(having: find, from: pane.selected, forward: true) == nil {
                state.message = .init("No line says “\(find)”.")
            }
        case .cancelled:
            pane.typingFind = false
            pane.find = nil
            pane.selected = pane.findOrigin
        case .changed(let typed):
            pane.find = typed.isEmpty ? nil : typed
            if let find = pane.find, let found = pane.firstLine(having: find, from: pane.findOrigin, forward: true) {
                pane.selected = found
            } else if pane.find == nil {
                pane.selected = pane.findOrigin
            }
        case .ignored: break
        }
    }

    /// `n` / `N`: the next / previous line that has `/`'s words, going round.
    private static func findAgain(forward: Bool, pane: inout TranscriptPane, state: inout TUIState) {
        guard let find = pane.find else {
            state.message = .init("No search yet: \(state.keys.key(.search)) finds words in the transcript.")
            return
        }
        let start = pane.selected + (forward ? 1 : -1)
        guard let found = pane.firstLine(having: find, from: start, forward: forward) else {
            state.message = .init("No line says “\(find)”.")
            return
        }
        if forward ? found <= pane.selected : found >= pane.selected {
            state.message = .init("The search went round to the \(forward ? "top" : "bottom").")
        }
        pane.selected = found
    }
}
