import PodqBase
import PodqCore
import PodqSession
import PodqUI
import Synchronization

/// The TUI's one stream of events from other threads: a signal handler's quit, the lines of the keys'
/// work, the detail pane's contents, the show notes' matches, the library's reads, the disk-full
/// notice. They queue in the order they were posted; the loop takes them all between two keys and
/// applies each (``TUIController/apply(_:state:snapshot:pageSize:)``). Keys come from the terminal.
final class TUIEvents: Sendable {
    private struct Contents {
        var queue: [TUIEvent] = []
        var notesAsked = 0
        var notesAnswered = 0
    }

    private let contents = Mutex(Contents())

    func post(_ event: TUIEvent) {
        contents.withLock { $0.queue.append(event) }
    }

    /// A line for the message line, cleaned of control characters.
    func post(_ text: String, isError: Bool = false) {
        post(.message(.init(SafeText.clean(text), isError: isError)))
    }

    /// Every event posted since the last call, oldest first.
    func drain() -> [TUIEvent] {
        contents.withLock { contents in
            defer { contents.queue.removeAll(keepingCapacity: true) }
            return contents.queue
        }
    }

    /// A number for the next search of the show notes: answers come back in any order (each runs in
    /// a task of its own), and an older one must not take the place of a newer.
    func nextNotesSearch() -> Int {
        contents.withLock {
            $0.notesAsked += 1
            return $0.notesAsked
        }
    }

    /// The episodes whose show notes match search number `number`, found in the background; posted
    /// only when no later search has answered.
    func post(notes: NotesMatches, number: Int) {
        contents.withLock {
            guard number > $0.notesAnswered else { return }
            $0.notesAnswered = number
            $0.queue.append(.notes(notes))
        }
    }
}
