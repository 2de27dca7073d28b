import FoundationEssentials
import PodqBase

/// HTML and plain-text transcripts. Podcasting 2.0's HTML gives times as `<time>0:00</time>` before
/// each paragraph and speakers as `<cite>Alice:</cite>`: read so, a cue per `<time>`. HTML without
/// any `<time>` and plain text have no times: a cue per paragraph (a plain-text line that starts
/// with a time, `0:01:02` or `[01:02]`, starts there). The HTML is read by libxml2's HTML parser
/// (``ShowNotes``): broken markup, entities, scripts and styles as in show notes.
enum HTMLTranscriptParser {
    static func parseHTML(_ html: String, limits: TranscriptLimits) -> TranscriptDocument {
        // Split at each <time>…</time>, the tags' names in any case (ASCII lowered for the search,
        // which keeps every byte where it was).
        let bytes = Array(html.utf8)
        let lower = bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
        func find(_ needle: String, from: Int) -> Int? {
            let n = Array(needle.utf8)
            guard n.count <= lower.count else { return nil }
            var i = from
            while i + n.count <= lower.count {
                if lower[i] == n[0] && lower[i..<(i + n.count)].elementsEqual(n) { return i }
                i += 1
            }
            return nil
        }
        func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        var parts: [(time: String?, html: String)] = []
        var at = 0
        var time: String?
        while parts.count <= limits.cues, let open = find("<time", from: at), let openEnd = lower[open...].firstIndex(of: UInt8(ascii: ">")),
            let close = find("</time>", from: openEnd)
        {
            parts.append((time, text(at..<open)))
            time = text((openEnd + 1)..<close)
            at = close + 7
        }
        parts.append((time, text(at..<bytes.count)))
        guard parts.count > 1 else { return untimed(ShowNotes.paragraphs(html), format: .html, limits: limits) }

        var cues: [TranscriptCue] = []
        var badTimes = 0, cut = 0
        var speaker: String?
        for part in parts {
            // The last `<cite>` of a part names who speaks from the next `<time>` on.
            var body = Array(part.html.utf8)[...]
            var nextSpeaker = speaker
            let lowered = body.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
            if let cite = lastIndex(of: Array("<cite".utf8), in: lowered) {
                let name = ShowNotes.paragraphs(String(decoding: body[cite...], as: UTF8.self)).joined(separator: " ")
                nextSpeaker = name.trimming { $0 == ":" || $0.properties.isWhitespace }
                body = body[..<cite]
            }
            defer { speaker = nextSpeaker.flatMap { $0.isEmpty ? nil : $0 } }
            let text = ShowNotes.paragraphs(String(decoding: body, as: UTF8.self)).joined(separator: " ")
            guard !text.isEmpty else { continue }
            let start = part.time.flatMap { CueTime.seconds(ShowNotes.paragraphs($0).joined().trimmingWhitespace) }
            if part.time != nil && start == nil { badTimes += 1 }
            guard cues.count < limits.cues else { break }
            let plain = CueText.plain(text, limit: limits.cueBytes, markup: false)
            if plain.cut { cut += 1 }
            guard !plain.text.isEmpty else { continue }
            cues.append(TranscriptCue(start: start, speaker: speaker, text: plain.text))
        }
        var notes: [String] = []
        if badTimes > 0 { notes.append("\(badTimes) <time> that \(badTimes == 1 ? "is" : "are") not a time (h:mm:ss) read without one") }
        if cut > 0 { notes.append("\(cut) paragraph\(cut == 1 ? "" : "s") longer than \(limits.cueBytes) bytes cut short") }
        if cues.count >= limits.cues { notes.append("only the first \(limits.cues) cues kept") }
        return TranscriptDocument(format: .html, cues: cues, notes: notes)
    }

    /// Where `needle` last starts in `haystack`.
    private static func lastIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        var i = haystack.count - needle.count
        while i >= 0 {
            if haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i -= 1
        }
        return nil
    }

    static func parseText(_ text: String, limits: TranscriptLimits) -> TranscriptDocument {
        var cues: [TranscriptCue] = []
        var cut = 0
        var truncated = false
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            guard cues.count < limits.cues else {
                truncated = true
                break
            }
            var body = Substring(line.trimmingWhitespace)
            var start: Double?
            // "[0:01:02] Alice: …", "01:02 …", "(1:02:03) …"
            let token = body.prefix { !$0.isWhitespace }
            let bare = token.trimming { "[]()".unicodeScalars.contains($0) }
            if token.contains(":"), let seconds = CueTime.seconds(bare) {
                start = seconds
                body = body.dropFirst(token.count)
            }
            let plain = CueText.plain(String(body), limit: limits.cueBytes)
            if plain.cut { cut += 1 }
            guard !plain.text.isEmpty else { continue }
            cues.append(TranscriptCue(start: start, text: plain.text))
        }
        // A text with a time on some lines only: the lines between take the time before them.
        if cues.contains(where: { $0.start != nil }) {
            var last: Double?
            for i in cues.indices {
                if let start = cues[i].start { last = start } else { cues[i].start = last }
            }
        }
        var notes: [String] = []
        if cut > 0 { notes.append("\(cut) line\(cut == 1 ? "" : "s") longer than \(limits.cueBytes) bytes cut short") }
        if truncated { notes.append("only the first \(limits.cues) lines kept") }
        return TranscriptDocument(format: .text, cues: cues, notes: notes)
    }

    /// Paragraphs without times, a cue each (a long one cut).
    private static func untimed(_ paragraphs: [String], format: TranscriptFormat, limits: TranscriptLimits) -> TranscriptDocument {
        var cues: [TranscriptCue] = []
        var cut = 0
        for paragraph in paragraphs.prefix(limits.cues) {
            let plain = CueText.plain(paragraph, limit: limits.cueBytes, markup: false)
            if plain.cut { cut += 1 }
            if !plain.text.isEmpty { cues.append(TranscriptCue(start: nil, text: plain.text)) }
        }
        var notes: [String] = []
        if cut > 0 { notes.append("\(cut) paragraph\(cut == 1 ? "" : "s") longer than \(limits.cueBytes) bytes cut short") }
        if paragraphs.count > limits.cues { notes.append("only the first \(limits.cues) paragraphs kept") }
        return TranscriptDocument(format: format, cues: cues, notes: notes)
    }
}
