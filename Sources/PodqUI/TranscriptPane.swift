import PodqCore

/// The Transcript pane (issue 46): one episode's transcript, a line a cue (`t`), or the hits of a
/// search of every transcript, under a heading an episode (`T`, then words). Its lines come from the
/// session (``TUIEvent/transcript(_:)``); the keys move in them, `/` finds words in them, and Enter
/// plays the line's episode from the line's time (``TUIController``).
public struct TranscriptPane: Sendable, Equatable {
    /// What the pane shows.
    public enum Kind: Sendable, Equatable {
        /// The transcript of the row `id` of `view` (an episode, or a download's episode).
        case episode(view: TUIView, id: Int64, title: String)
        /// Where every transcript says `words`.
        case search(words: String)
    }

    /// One line: a cue, a hit, or (a search) the heading of an episode's hits.
    public struct Line: Sendable, Equatable {
        public var episodeId: Int64
        /// Seconds from the episode's start; nil for a transcript without times and for a heading.
        public var start: Double?
        /// Already free of control characters.
        public var text: String
        /// The words a search found, as offsets in `text`'s Unicode scalars.
        public var marks: [Range<Int>]
        /// The episode of the hits below it: not a place to play from, the selection passes it.
        public var isHeading: Bool

        public init(episodeId: Int64, start: Double?, text: String, marks: [Range<Int>] = [], isHeading: Bool = false) {
            self.episodeId = episodeId
            self.start = start
            self.text = text
            self.marks = marks
            self.isHeading = isHeading
        }
    }

    /// What the session read, for the pane it was asked for.
    public struct Answer: Sendable, Equatable {
        public var kind: Kind
        public var lines: [Line]
        /// Where the transcript came from, or how many hits of how many transcripts.
        public var note: String?
        /// Nothing could be read: `note` says why.
        public var failed: Bool

        public init(kind: Kind, lines: [Line], note: String? = nil, failed: Bool = false) {
            self.kind = kind
            self.lines = lines
            self.note = note
            self.failed = failed
        }
    }

    public var kind: Kind
    /// The answer has not come yet.
    public var loading = true
    public var lines: [Line] = []
    public var note: String?
    public var failed = false
    public var selected = 0
    /// The first line shown (the renderer keeps the selection in view).
    public var scroll = 0
    /// The words `/` looks for in the lines (case and accents ignored); nil: none.
    public var find: String?
    /// `/` is being typed: the selection follows the first line that has it.
    public var typingFind = false
    /// Where `/` started, to go back to on Esc.
    public var findOrigin = 0
    /// The time to select when the lines come (a hit opened with `t`: its cue).
    public var selectingTime: Double?

    public init(kind: Kind, at time: Double? = nil) {
        self.kind = kind
        selectingTime = time
    }

    /// Takes `answer` when it is this pane's (the same row, or the same words; a title may differ).
    public mutating func receive(_ answer: Answer) {
        guard loading, Self.same(answer.kind, kind) else { return }
        loading = false
        lines = answer.lines
        note = answer.note
        failed = answer.failed
        scroll = 0
        selected = selectingTime.flatMap(line(at:)) ?? 0
        select(selected, forward: true)
    }

    static func same(_ a: Kind, _ b: Kind) -> Bool {
        switch (a, b) {
        case (.episode(let v1, let id1, _), .episode(let v2, let id2, _)): v1 == v2 && id1 == id2
        case (.search(let w1), .search(let w2)): w1 == w2
        default: false
        }
    }

    /// The line that is playing at `time`: the last one that starts at or before it.
    public func line(at time: Double) -> Int? {
        var found: Int?
        for (i, line) in lines.enumerated() where !line.isHeading {
            guard let start = line.start else { continue }
            if start <= time + 0.0005 { found = i } else if found != nil { break }
        }
        return found ?? lines.firstIndex { !$0.isHeading }
    }

    /// The selected line, when it is one to play from (not a heading).
    public var selectedLine: Line? {
        lines.indices.contains(selected) && !lines[selected].isHeading ? lines[selected] : nil
    }

    /// Selects line `index` (clamped), or past a heading the next line that is not one, in the
    /// direction of the move (or back the other way at an end).
    public mutating func select(_ index: Int, forward: Bool) {
        guard !lines.isEmpty else {
            selected = 0
            return
        }
        var i = min(max(0, index), lines.count - 1)
        let step = forward ? 1 : -1
        while lines.indices.contains(i), lines[i].isHeading { i += step }
        if !lines.indices.contains(i) {
            i = min(max(0, index), lines.count - 1)
            while lines.indices.contains(i), lines[i].isHeading { i -= step }
        }
        selected = lines.indices.contains(i) ? i : 0
    }

    /// Moves the selection `offset` lines (a heading is passed).
    public mutating func move(by offset: Int) { select(selected + offset, forward: offset >= 0) }

    /// The first line from `start` on (going round, forward or back) whose text has `needle`, case
    /// and accents ignored; nil when none has.
    public func firstLine(having needle: String, from start: Int, forward: Bool) -> Int? {
        let folded = SearchFold.fold(needle)
        guard !folded.isEmpty, !lines.isEmpty else { return nil }
        let count = lines.count
        var i = ((start % count) + count) % count
        for _ in 0..<count {
            if !lines[i].isHeading, SearchFold.fold(lines[i].text).contains(folded) { return i }
            i = forward ? (i + 1) % count : (i - 1 + count) % count
        }
        return nil
    }

    /// The episodes the lines come from (a search's hits count each once).
    public var episodeCount: Int { Set(lines.lazy.filter { !$0.isHeading }.map(\.episodeId)).count }
}
