import FoundationEssentials
import PodqBase

/// One line of what was said: where it starts (seconds; nil in a transcript without times, HTML or
/// plain text), where it ends when the transcript says, who said it when it says, and the words as
/// plain, clean text (no markup, no control characters: ``SafeText``).
public struct TranscriptCue: Sendable, Equatable, Codable {
    public var start: Double?
    public var end: Double?
    public var speaker: String?
    public var text: String

    public init(start: Double?, end: Double? = nil, speaker: String? = nil, text: String) {
        self.start = start
        self.end = end
        self.speaker = speaker
        self.text = text
    }
}

/// A transcript as podq reads it (``TranscriptReader``): its cues in time order, and what was wrong
/// with the input and how podq read it anyway (`notes`, one clear sentence each, never a crash).
public struct TranscriptDocument: Sendable, Equatable {
    public var format: TranscriptFormat
    public var cues: [TranscriptCue]
    public var notes: [String]

    public init(format: TranscriptFormat, cues: [TranscriptCue], notes: [String] = []) {
        self.format = format
        self.cues = cues
        self.notes = notes
    }

    /// Whether the cues have times (VTT, SRT, JSON, and HTML with `<time>`).
    public var isTimed: Bool { cues.contains { $0.start != nil } }

    /// The words of every cue, a line each: what the index stores.
    public var plainText: String { cues.map(\.text).joined(separator: "\n") }
}

/// The bounds a transcript is read within: hostile input (a 20 MB cue, a million cues) ends in a
/// note and a transcript cut short, never in a process that runs out of memory.
public struct TranscriptLimits: Sendable, Equatable {
    /// The largest input read (a three-hour episode's VTT is about 300 KB; word-level JSON 3 MB).
    public var bytes: Int
    /// The most cues kept (a three-hour episode has about 3,000 lines).
    public var cues: Int
    /// The longest cue kept, in UTF-8 bytes; a longer one is cut at a word.
    public var cueBytes: Int

    public init(bytes: Int = 20_000_000, cues: Int = 100_000, cueBytes: Int = 4_000) {
        self.bytes = bytes
        self.cues = cues
        self.cueBytes = cueBytes
    }

    public static let standard = TranscriptLimits()
}
