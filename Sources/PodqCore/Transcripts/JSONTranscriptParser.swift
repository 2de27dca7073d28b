import FoundationEssentials
import PodqBase

/// Podcasting 2.0's JSON transcript: `{"version": "1.0.0", "segments": [{"speaker": "Alice",
/// "startTime": 0.5, "endTime": 1.2, "body": "Hello"}, …]}` (a bare array of segments read too).
/// Segments are often one word each: consecutive ones of one speaker are joined into a cue, a line
/// of speech, which ends at a pause of two seconds, a sentence's end past 120 bytes, or 400 bytes.
/// So a phrase is found across the words, and a hit shows its sentence.
enum JSONTranscriptParser {
    struct Segment: Decodable {
        var speaker: String?
        var startTime: Double?
        var endTime: Double?
        var body: String?

        enum Keys: String, CodingKey { case speaker, startTime, endTime, body }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            speaker = try? c.decode(String.self, forKey: .speaker)
            startTime = TranscriptJSON.time(c, .startTime)
            endTime = TranscriptJSON.time(c, .endTime)
            body = try? c.decode(String.self, forKey: .body)
        }
    }

    /// The segments, at most `limit` of them read (`more`: there were more).
    struct Segments: Decodable {
        var list: [Segment] = []
        var more = false
        static let limit = CodingUserInfoKey(rawValue: "podq.segmentLimit")!

        init(from decoder: any Decoder) throws {
            let limit = decoder.userInfo[Self.limit] as? Int ?? .max
            var array = try decoder.unkeyedContainer()
            while !array.isAtEnd {
                if list.count >= limit {
                    more = true
                    break
                }
                let before = array.currentIndex
                if let segment = try? array.decode(Segment.self) {
                    list.append(segment)
                } else if (try? array.decode(JSONTree.self)) == nil || array.currentIndex == before {
                    break  // a value no decoder reads (a number beyond Double): the rest is left
                }
            }
        }
    }

    struct File: Decodable {
        var segments: Segments
        enum Keys: String, CodingKey { case segments }
        init(from decoder: any Decoder) throws {
            if let object = try? decoder.container(keyedBy: Keys.self) {
                segments = try object.decode(Segments.self, forKey: .segments)
            } else {
                segments = try Segments(from: decoder)
            }
        }
    }

    static func parse(_ bytes: [UInt8], limits: TranscriptLimits) throws(TranscriptError) -> TranscriptDocument {
        let decoder = JSONDecoder()
        decoder.userInfo[Segments.limit] = limits.cues * 4
        let file = try TranscriptJSON.decode(File.self, from: bytes, list: "segments", decoder: decoder)
        var cues: [TranscriptCue] = []
        var notes: [String] = []
        var untimed = 0, cut = 0
        var current: TranscriptCue?
        var currentBytes = 0
        func close() {
            guard var cue = current else { return }
            current = nil
            let plain = CueText.plain(cue.text, limit: limits.cueBytes)
            if plain.cut { cut += 1 }
            guard !plain.text.isEmpty, cues.count < limits.cues else { return }
            cue.text = plain.text
            cues.append(cue)
        }
        for segment in file.segments.list {
            guard let body = segment.body, !body.isEmpty else { continue }
            guard let start = segment.startTime, start.isFinite, start >= 0 else {
                untimed += 1
                continue
            }
            let speaker = segment.speaker.map { SafeText.clean($0.trimmingWhitespace) }.flatMap { $0.isEmpty ? nil : $0 }
            if var open = current {
                let gap = start - (open.end ?? open.start ?? start)
                let sentenceEnd = open.text.last.map { ".?!…".contains($0) } ?? false
                if speaker == open.speaker && gap < 2 && currentBytes < 400 && !(sentenceEnd && currentBytes >= 120) {
                    open.text += " " + body
                    open.end = segment.endTime.flatMap { $0 >= start ? $0 : nil } ?? open.end
                    currentBytes += body.utf8.count + 1
                    current = open
                    continue
                }
                close()
            }
            current = TranscriptCue(start: start, end: segment.endTime.flatMap { $0 >= start ? $0 : nil }, speaker: speaker, text: body)
            currentBytes = body.utf8.count
        }
        close()
        if untimed > 0 { notes.append("\(untimed) segment\(untimed == 1 ? "" : "s") without a start time skipped") }
        if cut > 0 { notes.append("\(cut) cue\(cut == 1 ? "" : "s") longer than \(limits.cueBytes) bytes cut short") }
        if file.segments.more || cues.count >= limits.cues { notes.append("only the first \(min(cues.count, limits.cues)) cues kept") }
        return TranscriptDocument(format: .json, cues: cues, notes: notes)
    }
}
