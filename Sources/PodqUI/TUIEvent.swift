import PodqCore

/// What reaches the TUI's loop, one at a time in the order it came: a key from the terminal, and from
/// other threads the line of a key's work, the detail pane's contents, the show notes' matches, a new
/// library, the queue's notice, a request to quit. ``TUIController/apply(_:state:snapshot:pageSize:)``
/// applies each to the ``TUIState``; nothing else changes it.
public enum TUIEvent: Sendable, Equatable {
    case key(Key)
    /// A line for the message line: a key's work done, or why it failed.
    case message(TUIState.Message)
    /// The detail pane's contents, read in the background.
    case detail(Detail)
    /// The episodes whose show notes match the search being typed.
    case notes(NotesMatches)
    /// A new library was read (or an episode marked): the next frame shows it.
    case libraryChanged
    /// The library could not be read.
    case libraryFailed(String)
    /// Something the whole queue waits on (a full disk), or nil when it is over.
    case notice(String?)
    /// A directory search answered.
    case directory(DirectoryPane.Answer)
    /// A transcript, or the hits of a search of every transcript, was read.
    case transcript(TranscriptPane.Answer)
    /// A podcast was subscribed from a search: its episodes are shown.
    case showPodcast(id: Int64, title: String)
    /// What plays download `id` was looked up: the player may have the terminal.
    case playerReady(id: Int64)
    /// Leave: a signal or the terminal hanging up (`bySignal`), or the store failing.
    case quit(bySignal: Bool)
}

extension TUIController {
    /// Applies `event`, and returns what the session is to carry out (a key's actions). `snapshot` is
    /// taken only for the events that read it.
    public static func apply(_ event: TUIEvent, state: inout TUIState, snapshot: @autoclosure () -> TUISnapshot, pageSize: Int) -> [TUIAction] {
        switch event {
        case .key(let key):
            return handle(key, state: &state, snapshot: snapshot(), pageSize: pageSize)
        case .message(let message):
            state.message = message
        case .detail(let detail):
            // Only the pane still open on that row takes it.
            if state.mode == .detail, state.detail?.view == detail.view, state.detail?.id == detail.id { state.detail = detail }
        case .notes(let matches):
            receive(matches, state: &state, snapshot: snapshot())
        case .libraryChanged:
            break
        case .libraryFailed(let reason):
            state.message = .init("cannot read the episodes: \(reason)", isError: true)
        case .directory(let answer):
            state.directory?.receive(answer)
        case .transcript(let answer):
            state.transcript?.receive(answer)
        case .showPodcast(let id, let title):
            state.episodesOf = .init(id: id, title: title)
            state.filter[.episodes] = nil
            state.stateFilter[.episodes] = nil
            state.view = .episodes
            state.selectedIndex[.episodes] = 0
            state.selectedID[.episodes] = nil
        case .notice(let text):
            state.notice = text
        case .playerReady(let id):
            return state.quit ? [] : [.startPlayer(id: id)]
        case .quit(let bySignal):
            state.quit = true
            state.quitBySignal = state.quitBySignal || bySignal
        }
        return []
    }
}
