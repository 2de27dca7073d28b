import FoundationEssentials
import PodqBase

/// Reads a transcript in any of Podcasting 2.0's formats into cues (``TranscriptDocument``): VTT,
/// SRT, JSON, HTML, plain text. The format is the one given (the feed's MIME type, the file's
/// name) unless the bytes plainly say another (a VTT served as `text/plain`; never an HTML page for a
/// VTT or JSON link: an error page is not a transcript); given none, the bytes say. Bad input is a note and what could be read, or a ``TranscriptError`` when nothing could:
/// never a crash, never more than ``TranscriptLimits`` in memory.
public enum TranscriptReader {
    /// - Parameter duration: the episode's length in seconds when known: cues said to start after
    ///   it are kept, with a note (an episode's stated duration is often wrong).
    public static func read(
        _ bytes: [UInt8], format given: TranscriptFormat? = nil, duration: Double? = nil, limits: TranscriptLimits = .standard
    ) throws(TranscriptError) -> TranscriptDocument {
        guard bytes.count <= limits.bytes else { throw .tooLarge(bytes: bytes.count, limit: limits.bytes) }
        let sniffed = TranscriptFormat(sniffing: bytes)
        var notes: [String] = []
        var format = given ?? sniffed ?? .text
        // Only a plain signature overrules the type (WEBVTT, a JSON object or list), or any for a
        // type that says nothing (text/plain): a VTT or JSON link answered with an HTML page is an
        // error page more often than a transcript, and is not read as one.
        if let given, let sniffed, sniffed != given, given == .text || sniffed == .vtt || sniffed == .json {
            notes.append("it was said to be \(given.rawValue.uppercased()) but is \(sniffed.rawValue.uppercased()): read as that")
            format = sniffed
        }
        var document: TranscriptDocument
        if format == .json {
            document = try JSONTranscriptParser.parse(bytes, limits: limits)
        } else {
            let (text, note) = CueText.decode(bytes)
            if let note { notes.append(note) }
            switch format {
            case .vtt, .srt: document = TimedTextParser.parse(text, format: format, limits: limits)
            case .html: document = HTMLTranscriptParser.parseHTML(text, limits: limits)
            case .text, .json: document = HTMLTranscriptParser.parseText(text, limits: limits)
            }
        }
        guard !document.cues.isEmpty else { throw .empty(format) }
        document.notes = notes + document.notes
        order(&document)
        if let duration, duration > 0 {
            let late = document.cues.count { ($0.start ?? 0) > duration + 1 }
            if late > 0 {
                document.notes.append(
                    "\(late) cue\(late == 1 ? " starts" : "s start") after the episode's end (\(CueTime.text(duration))): kept, the duration may be wrong")
            }
        }
        return document
    }

    /// Cues out of time order sorted (stably: cues of one time keep theirs), with a note.
    static func order(_ document: inout TranscriptDocument) {
        // A cue without a time (a bad `<time>`) stays after the one before it.
        var last = -1.0
        let starts = document.cues.map { cue -> Double in
            if let start = cue.start { last = start }
            return last
        }
        guard zip(starts, starts.dropFirst()).contains(where: { $0 > $1 }) else { return }
        let out = zip(starts, starts.dropFirst()).count { $0 > $1 }
        document.cues = document.cues.indices.sorted { a, b in
            starts[a] != starts[b] ? starts[a] < starts[b] : a < b
        }.map { document.cues[$0] }
        document.notes.append("\(out) cue\(out == 1 ? " was" : "s were") out of time order: sorted by time")
    }
}
