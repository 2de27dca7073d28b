import PodqCore
import PodqUI
import Synchronization

/// What other threads hand the main loop: a quit request from a signal handler, messages from
/// background work (the keys' work, adding a feed), and the disk-full notice.
final class TUIInbox: Sendable {
    private struct Contents {
        var quit = false
        var bySignal = false
        var message: TUIState.Message?
        var changed = false
        var notice: String?
        var detail: Detail?
        var notes: NotesMatches?
        var notesAsked = 0
        var notesAnswered = 0
    }

    private let contents = Mutex(Contents())

    func requestQuit(signal: Bool) {
        contents.withLock {
            $0.quit = true
            $0.bySignal = $0.bySignal || signal
        }
    }

    var quitRequested: Bool { contents.withLock { $0.quit } }
    var quitBySignal: Bool { contents.withLock { $0.bySignal } }
    var notice: String? { contents.withLock { $0.notice } }

    func post(_ text: String, isError: Bool = false) {
        contents.withLock { $0.message = .init(SafeText.clean(text), isError: isError) }
    }

    /// The detail pane's contents, read in the background.
    func post(detail: Detail) {
        contents.withLock { $0.detail = detail }
    }

    func takeDetail() -> Detail? { take(\.detail) }

    /// A number for the next search of the show notes: answers come back in any order (each runs in
    /// a task of its own), and an older one must not take the place of a newer.
    func nextNotesSearch() -> Int {
        contents.withLock {
            $0.notesAsked += 1
            return $0.notesAsked
        }
    }

    /// The episodes whose show notes match search number `number`, found in the background; kept
    /// only when no later search has answered.
    func post(notes: NotesMatches, number: Int) {
        contents.withLock {
            guard number > $0.notesAnswered else { return }
            $0.notesAnswered = number
            $0.notes = notes
        }
    }

    func takeNotesMatches() -> NotesMatches? { take(\.notes) }

    func takeMessage() -> TUIState.Message? { take(\.message) }

    /// What was posted to `field` since the last take, once.
    private func take<Value: Sendable>(_ field: WritableKeyPath<Contents, Value?>) -> Value? {
        contents.withLock { contents in
            defer { contents[keyPath: field] = nil }
            return contents[keyPath: field]
        }
    }

    func setNotice(_ text: String?) {
        contents.withLock {
            $0.notice = text
            $0.changed = true
        }
    }

    func takeChanged() -> Bool {
        contents.withLock { contents in
            defer { contents.changed = false }
            return contents.changed
        }
    }
}
