import FoundationEssentials
import PodqBase

/// WebVTT and SubRip: blocks of lines parted by blank lines, each cue a timing line
/// (`00:01:02.500 --> 00:01:04.000`, SRT with commas, VTT with cue settings after it) and its text
/// lines, an identifier (SRT's number) before it allowed. VTT's `NOTE`, `STYLE` and `REGION` blocks
/// are skipped; a block without a timing line is skipped with a note. CR, LF and CRLF all end a line.
enum TimedTextParser {
    static func parse(_ text: String, format: TranscriptFormat, limits: TranscriptLimits) -> TranscriptDocument {
        var cues: [TranscriptCue] = []
        var notes: [String] = []
        var skipped = 0, badTimes = 0, cutCues = 0
        var truncated = false
        var block: [Substring] = []
        var sawHeader = false
        var first = true

        func finish() {
            defer { block.removeAll(keepingCapacity: true) }
            guard !block.isEmpty else { return }
            if first {
                first = false
                if block[0].hasPrefix("WEBVTT") {
                    sawHeader = true
                    // The header's own lines end at the first blank line; a cue right after it (no
                    // blank line, seen in the wild) is read too.
                    guard let timing = block.firstIndex(where: { $0.contains("-->") }) else { return }
                    block.removeFirst(max(1, timing - 1))
                }
            }
            if format == .vtt, let head = block.first,
                head == "NOTE" || head.hasPrefix("NOTE ") || head.hasPrefix("NOTE\t") || head == "STYLE" || head == "REGION"
            {
                return
            }
            guard let timing = block.prefix(2).firstIndex(where: { $0.contains("-->") }) else {
                skipped += 1
                return
            }
            guard let (start, end) = times(block[timing]) else {
                badTimes += 1
                return
            }
            guard cues.count < limits.cues else {
                truncated = true
                return
            }
            let payload = block[(timing + 1)...].joined(separator: "\n")
            let plain = CueText.plain(payload, limit: limits.cueBytes)
            if plain.cut { cutCues += 1 }
            guard !plain.text.isEmpty else { return }
            cues.append(TranscriptCue(start: start, end: end, speaker: plain.speaker, text: plain.text))
        }

        let scalars = text.unicodeScalars
        var lineStart = scalars.startIndex
        var index = scalars.startIndex
        // Lines split by hand: CR, LF and CRLF (`split` on Character would make CRLF one).
        while index < scalars.endIndex {
            let scalar = scalars[index]
            if scalar == "\n" || scalar == "\r" {
                let line = Substring(scalars[lineStart..<index])
                var next = scalars.index(after: index)
                if scalar == "\r", next < scalars.endIndex, scalars[next] == "\n" { next = scalars.index(after: next) }
                if line.allSatisfy({ $0 == " " || $0 == "\t" }) { finish() } else { block.append(line) }
                lineStart = next
                index = next
                if truncated { break }
                continue
            }
            index = scalars.index(after: index)
        }
        if !truncated {
            let last = Substring(scalars[lineStart...])
            if !last.allSatisfy({ $0 == " " || $0 == "\t" }) { block.append(last) }
            finish()
        }
        if format == .vtt && !sawHeader { notes.append("it does not start with WEBVTT: read as WebVTT all the same") }
        if skipped > 0 { notes.append("\(skipped) block\(skipped == 1 ? "" : "s") without a timing line skipped") }
        if badTimes > 0 { notes.append("\(badTimes) cue\(badTimes == 1 ? "" : "s") with a time that is not one (h:mm:ss.ttt) skipped") }
        if cutCues > 0 { notes.append("\(cutCues) cue\(cutCues == 1 ? "" : "s") longer than \(limits.cueBytes) bytes cut short") }
        if truncated { notes.append("only the first \(limits.cues) cues kept") }
        return TranscriptDocument(format: format, cues: cues, notes: notes)
    }

    /// A timing line's start and end: `start --> end [settings]`; the end may be missing or bad
    /// (then nil), the start must be a time.
    static func times(_ line: Substring) -> (Double, Double?)? {
        guard let arrow = line.firstRange(of: "-->") else { return nil }
        let start = line[..<arrow.lowerBound].trimmingWhitespace
        let rest = line[arrow.upperBound...].trimmingWhitespace
        guard let startSeconds = CueTime.seconds(start) else { return nil }
        let endText = rest.split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? ""
        let end = CueTime.seconds(endText).flatMap { $0 >= startSeconds ? $0 : nil }
        return (startSeconds, end)
    }
}
