import Foundation
import PodqBase
import PodqServer
import XCTest

@testable import PodqCore

/// Transcripts in the formats Podcasting 2.0 hosts publish, as they write them (cue settings,
/// styles, speakers, BOMs, CRLF), and generated ones in every layout those formats allow.
final class TranscriptReaderTests: XCTestCase {
    private func read(_ text: String, _ format: TranscriptFormat? = nil, duration: Double? = nil) throws -> TranscriptDocument {
        try TranscriptReader.read(Array(text.utf8), format: format, duration: duration)
    }

    func testWebVTTAsHostsWriteIt() throws {
        let vtt = """
            WEBVTT
            Kind: captions
            Language: en

            STYLE
            ::cue { color: yellow }

            NOTE This transcript was made by a machine
            and checked by a person.

            REGION
            id:fred width:40%

            1
            00:00:00.000 --> 00:00:04.120 align:start position:10% line:0
            <v Alice>Welcome back to <i>the show</i> &amp; thanks</v>
            for listening.

            intro-2
            00:04.120 --> 00:07.500
            <v.loud Bob Smith>We talk about <c.yellow>climate change</c> today.<00:00:06.000> Really.

            01:02:03.250 --> 01:02:05.000
            An hour in &lt;and&gt; &#8220;quoted&#8221;&nbsp;words.
            """
        let document = try read(vtt, .vtt)
        XCTAssertEqual(document.notes, [])
        XCTAssertEqual(
            document.cues,
            [
                TranscriptCue(start: 0, end: 4.12, speaker: "Alice", text: "Welcome back to the show & thanks for listening."),
                TranscriptCue(start: 4.12, end: 7.5, speaker: "Bob Smith", text: "We talk about climate change today. Really."),
                TranscriptCue(start: 3723.25, end: 3725, text: "An hour in <and> “quoted” words."),
            ])
    }

    func testSubRipWithABOMCRLFAndStyling() throws {
        let srt =
            "\u{FEFF}1\r\n00:00:01,500 --> 00:00:03,000\r\n<i>Hello</i> {\\an8}there\r\n\r\n2\r\n00:00:03,000 --> 00:00:05,250\r\n<font color=\"red\">Second</font>\r\nline\r\n\r\n"
        let document = try read(srt, .srt)
        XCTAssertEqual(document.notes, [])
        XCTAssertEqual(
            document.cues, [TranscriptCue(start: 1.5, end: 3, text: "Hello there"), TranscriptCue(start: 3, end: 5.25, text: "Second line")])
        // Old SRT files are Windows-1252: read as Latin-1, said so.
        var latin = Array("1\n00:00:01,000 --> 00:00:02,000\nCaf".utf8)
        latin.append(0xE9)
        let read = try TranscriptReader.read(latin, format: .srt)
        XCTAssertEqual(read.cues.map(\.text), ["Café"])
        XCTAssertEqual(read.notes, ["it is not UTF-8: read as Latin-1"])
    }

    func testPodcastingJSONSegmentsBecomeLinesOfSpeech() throws {
        var segments: [[String: Any]] = []
        let words = "So today we talk about climate change. It matters a lot to everyone listening at home right now.".split(separator: " ")
        for (i, word) in words.enumerated() {
            segments.append(["speaker": "Alice", "startTime": 1.0 + Double(i) * 0.4, "endTime": 1.3 + Double(i) * 0.4, "body": String(word)])
        }
        segments.append(["speaker": "Bob", "startTime": "0:00:20.5", "endTime": 21.0, "body": "Indeed."])
        segments.append(["speaker": "Bob", "startTime": 30.0, "body": "After a pause."])
        segments.append(["speaker": "Bob", "body": "No time."])
        let json = try JSONSerialization.data(withJSONObject: ["version": "1.0.0", "segments": segments])
        let document = try TranscriptReader.read(Array(json), format: .json)
        XCTAssertEqual(document.cues.map(\.text), [words.joined(separator: " "), "Indeed.", "After a pause."])
        XCTAssertEqual(document.cues.map(\.speaker), ["Alice", "Bob", "Bob"])
        XCTAssertEqual(document.cues.map(\.start), [1.0, 20.5, 30])
        XCTAssertEqual(document.notes, ["1 segment without a start time skipped"])
        // A bare list of segments, as some hosts write.
        let bare = try JSONSerialization.data(withJSONObject: [["startTime": 2, "body": "bare"]])
        XCTAssertEqual(try TranscriptReader.read(Array(bare), format: .json).cues, [TranscriptCue(start: 2, text: "bare")])
    }

    func testHTMLWithTimesAndSpeakersAndWithout() throws {
        let html = """
            <html><body>
            <cite>Alice:</cite>
            <time>0:00</time>
            <p>Welcome to the <b>show</b>.</p>
            <cite>Bob:</cite>
            <TIME>1:02:03</TIME>
            <p>Thanks &amp; hello.</p>
            <p>More from Bob.</p>
            </body></html>
            """
        let timed = try read(html, .html)
        XCTAssertEqual(
            timed.cues,
            [
                TranscriptCue(start: 0, speaker: "Alice", text: "Welcome to the show."),
                TranscriptCue(start: 3723, speaker: "Bob", text: "Thanks & hello. More from Bob."),
            ])
        let untimed = try read("<p>First paragraph.</p><p>Second &eacute;</p><script>x()</script>", .html)
        XCTAssertEqual(untimed.cues, [TranscriptCue(start: nil, text: "First paragraph."), TranscriptCue(start: nil, text: "Second é")])
        XCTAssertFalse(untimed.isTimed)
        let text = try read("Intro without a time\n[0:01:02] Alice: hello\n\n03:04 Bob: hi\nstill Bob\n", .text)
        XCTAssertEqual(text.cues.map(\.start), [nil, 62, 184, 184])
        XCTAssertEqual(text.cues.map(\.text), ["Intro without a time", "Alice: hello", "Bob: hi", "still Bob"])
    }

    func testTheBytesOverruleAWrongType() throws {
        let vtt = "WEBVTT\n\n00:01.000 --> 00:02.000\nhello\n"
        let document = try read(vtt, .text)
        XCTAssertEqual(document.format, .vtt)
        XCTAssertEqual(document.cues, [TranscriptCue(start: 1, end: 2, text: "hello")])
        XCTAssertEqual(document.notes, ["it was said to be TEXT but is VTT: read as that"])
        XCTAssertEqual(try read(vtt).format, .vtt, "no type: the bytes say")
        XCTAssertEqual(try read("1\n00:00:01,000 --> 00:00:02,000\nhi\n").format, .srt)
        // A VTT or JSON link answered with a web page (a login, an error) is no transcript: an error, no cues.
        let page = "<html><body><p>Please log in to continue.</p></body></html>"
        XCTAssertThrowsError(try read(page, .vtt)) { XCTAssertEqual($0 as? TranscriptError, .empty(.vtt)) }
        XCTAssertThrowsError(try read(page, .json)) { XCTAssertTrue("\($0)".contains("not well-formed JSON"), "\($0)") }
    }

    func testTimes() {
        let valid: [(String, Double)] = [
            ("00:00:01.500", 1.5), ("01:02:03.250", 3723.25), ("02:03.5", 123.5), ("00:00:01,500", 1.5), ("1:02:03", 3723), ("0:00", 0),
            ("100:00:00.000", 360_000), ("62.5", 62.5), ("7", 7), ("0:00:01.123456789", 1.123456),
        ]
        for (text, seconds) in valid { XCTAssertEqual(CueTime.seconds(text), seconds, text) }
        for text in [
            "", ":", "1:60", "1:60:00", "-1", "1:-2", "a:b", "1.2.3", "1::2", "1:2:3:4", ".5", "1:02:03.2.5", "99999999999999:00", "١:٠٠",
            "999999999999:59:59.999999999", "9999999999999",
        ] {
            XCTAssertNil(CueTime.seconds(text), text)
        }
        XCTAssertEqual(CueTime.text(0), "0:00:00")
        XCTAssertEqual(CueTime.text(3723.9), "1:02:03")
        XCTAssertEqual(CueTime.text(36_000), "10:00:00")
        XCTAssertEqual(CueTime.text(-5), "0:00:00")
        XCTAssertEqual(CueTime.text(.nan), "0:00:00")
    }

    /// The class: cues of every kind of text, written in every layout VTT, SRT and JSON allow (line
    /// ends, BOMs, identifiers, settings, hours or none, blank lines), read back as they were.
    func testGeneratedTranscriptsInEveryLayoutReadBack() throws {
        var random = SeededGenerator(seed: 46)
        let words = ["climate", "Café", "ポッドキャスト", "naïve", "a", "x<y", "Tom & Jerry", "50%", "--", "émoji 🎙", "it's", "\"quoted\"", "NOTE"]
        for round in 0..<400 {
            let count = Int.random(in: 1...12, using: &random)
            var cues: [TranscriptCue] = []
            var at = Double(Int.random(in: 0...5000, using: &random))
            for _ in 0..<count {
                let text = (0..<Int.random(in: 1...6, using: &random)).map { _ in words.randomElement(using: &random)! }.joined(separator: " ")
                let length = Double(Int.random(in: 1...9000, using: &random)) / 1000
                cues.append(TranscriptCue(start: at, end: at + length, text: text))
                at += length + Double(Int.random(in: 0...3, using: &random))
            }
            let newline = ["\n", "\r\n", "\r"].randomElement(using: &random)!
            let bom = Bool.random(using: &random) ? "\u{FEFF}" : ""
            func escaped(_ text: String) -> String {
                text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            }
            func time(_ seconds: Double, comma: Bool, shortForm: Bool) -> String {
                let ms = Int((seconds * 1000).rounded())
                let h = ms / 3_600_000, m = ms / 60_000 % 60, s = ms / 1000 % 60, f = ms % 1000
                let tail = String(format: "%02d:%02d%@%03d", m, s, comma ? "," : ".", f)
                return shortForm && h == 0 ? tail : String(format: "%02d:", h) + tail
            }
            let format: TranscriptFormat = [.vtt, .srt, .json][round % 3]
            var file = bom
            switch format {
            case .vtt:
                file += "WEBVTT" + (Bool.random(using: &random) ? " - a title" : "") + newline + newline
                for (i, cue) in cues.enumerated() {
                    if Bool.random(using: &random) { file += "cue-\(i)" + newline }
                    let settings = Bool.random(using: &random) ? " align:start position:10%" : ""
                    let short = Bool.random(using: &random)
                    file += time(cue.start!, comma: false, shortForm: short) + " --> " + time(cue.end!, comma: false, shortForm: short) + settings + newline
                    // The text over one or two lines.
                    let parts = escaped(cue.text).split(separator: " ")
                    let cut = Int.random(in: 0...parts.count, using: &random)
                    file += [parts[..<cut].joined(separator: " "), parts[cut...].joined(separator: " ")].filter { !$0.isEmpty }.joined(separator: newline)
                    file += newline + String(repeating: newline, count: Int.random(in: 1...2, using: &random))
                }
            case .srt:
                for (i, cue) in cues.enumerated() {
                    file +=
                        "\(i + 1)" + newline + time(cue.start!, comma: true, shortForm: false) + " --> " + time(cue.end!, comma: true, shortForm: false)
                        + newline
                    file += escaped(cue.text) + newline + newline
                }
            default:
                let segments = cues.map { ["startTime": $0.start!, "endTime": $0.end!, "body": $0.text, "speaker": "S\(Int($0.start!) % 2)"] as [String: Any] }
                file += String(decoding: try JSONSerialization.data(withJSONObject: ["version": "1.0.0", "segments": segments]), as: UTF8.self)
            }
            let document = try TranscriptReader.read(Array(file.utf8), format: format)
            let context = "round \(round), \(format): \(file.debugDescription)"
            XCTAssertEqual(document.notes, [], context)
            if format == .json {
                // Segments join into lines of speech: the same words, in order, from the same first time.
                XCTAssertEqual(document.cues.map(\.text).joined(separator: " "), cues.map(\.text).joined(separator: " "), context)
                XCTAssertEqual(document.cues.first?.start, cues.first?.start, context)
            } else {
                XCTAssertEqual(document.cues.map(\.text), cues.map(\.text), context)
                XCTAssertEqual(document.cues.map(\.start), cues.map { $0.start.map { ($0 * 1000).rounded() / 1000 } }, context)
            }
        }
    }

    /// Hostile input: a note and what could be read, or a clear error; never a crash, never unbounded.
    func testHostileInputEndsInANoteOrAClearError() throws {
        // A 20 MB cue (under the byte limit): cut at a word, said so.
        let huge = "1\n00:00:01,000 --> 00:00:02,000\n" + String(repeating: "word ", count: 3_900_000) + "\n"
        let cut = try TranscriptReader.read(Array(huge.utf8), format: .srt)
        XCTAssertEqual(cut.cues.count, 1)
        XCTAssertLessThanOrEqual(cut.cues[0].text.utf8.count, TranscriptLimits.standard.cueBytes + 3)
        XCTAssertEqual(cut.notes, ["1 cue longer than 4000 bytes cut short"])
        // Larger than the limit: refused, said how large.
        XCTAssertThrowsError(try TranscriptReader.read([UInt8](repeating: 0x41, count: 20_000_001))) {
            XCTAssertEqual($0 as? TranscriptError, .tooLarge(bytes: 20_000_001, limit: 20_000_000))
        }
        // A million cues: the first 100,000 kept.
        var million = "WEBVTT\n\n"
        million.reserveCapacity(20_000_000)
        for i in 0..<1_000_000 { million += "\(i / 60_000):\(i / 1000 % 60 < 10 ? "0" : "")\(i / 1000 % 60).000 --> 9:00.000\nw\n\n" }
        let many = try TranscriptReader.read(Array(million.utf8).prefix(20_000_000).map { $0 }, format: .vtt)
        XCTAssertEqual(many.cues.count, 100_000)
        XCTAssertTrue(many.notes.contains("only the first 100000 cues kept"), "\(many.notes)")
        // JSON nested deeper than any reader goes.
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        XCTAssertThrowsError(try TranscriptReader.read(Array(deep.utf8), format: .json)) { XCTAssertTrue("\($0)".contains("JSON"), "\($0)") }
        XCTAssertThrowsError(try TranscriptReader.read(Array("{\"segments\": 3}".utf8), format: .json)) {
            XCTAssertEqual($0 as? TranscriptError, .notJSON("its \"segments\" is not a list of them"))
        }
        // Out of order: sorted, said so; after the episode's end: kept, said so.
        let shuffled = "WEBVTT\n\n00:05.000 --> 00:06.000\nfive\n\n00:01.000 --> 00:02.000\none\n\n10:00.000 --> 10:01.000\nlate\n"
        let sorted = try read(shuffled, .vtt, duration: 300)
        XCTAssertEqual(sorted.cues.map(\.text), ["one", "five", "late"])
        XCTAssertEqual(
            sorted.notes, ["1 cue was out of time order: sorted by time", "1 cue starts after the episode's end (0:05:00): kept, the duration may be wrong"])
        // Nothing readable: an error that says so.
        XCTAssertThrowsError(try read("WEBVTT\n\nno cues here\n", .vtt)) { XCTAssertEqual($0 as? TranscriptError, .empty(.vtt)) }
        XCTAssertThrowsError(try read("", .text)) { XCTAssertEqual($0 as? TranscriptError, .empty(.text)) }
        // Found by FuzzTranscript: a <time> whose paragraph is only markup made an empty cue.
        let markupOnly = try? read("<cie><time>1?:02:03</time><p.there</><><B:<re</p>", .html)
        XCTAssertFalse(markupOnly?.cues.contains { $0.text.isEmpty } ?? false, "\(markupOnly?.cues ?? [])")
        let literal = try read("<time>0:01</time><p>x &lt; y &amp;&amp; a &lt;b&gt; c</p>", .html)
        XCTAssertEqual(literal.cues.map(\.text), ["x < y && a <b> c"], "what was said, not read as markup again")
        // Escape sequences and control characters never reach a cue.
        let hostile = try read("WEBVTT\n\n00:01.000 --> 00:02.000\n\u{1b}]0;pwned\u{07}hi\u{1b}[2J there\u{0}\n", .vtt)
        XCTAssertEqual(hostile.cues.map(\.text), ["hi there"])
    }

    /// Random bytes and random mutations of real transcripts, in every format: an error or cues of
    /// clean text, in time order.
    func testRandomBytesNeverCrashAndNeverYieldUncleanText() {
        var random = SeededGenerator(seed: 4646)
        let seeds = [
            "WEBVTT\n\n00:01.000 --> 00:02.000 align:start\n<v A>hi &amp; <b>bye</b>\n",
            "1\r\n00:00:01,000 --> 00:00:02,000\r\nhi\r\n",
            "{\"segments\":[{\"startTime\":1,\"body\":\"hi\",\"speaker\":\"A\"}]}",
            "<cite>A:</cite><time>0:01</time><p>hi</p>",
            "{\"chapters\":[{\"startTime\":0,\"title\":\"x\",\"toc\":false}]}",
        ]
        let alphabet = Array("<>&;:.,-->{}[]\"\\\n\r\t 0123456789WEBVTT".utf8) + [0x00, 0x1B, 0x07, 0xC3, 0xA9, 0xFF, 0xFE, 0xEF, 0xBB, 0xBF]
        for round in 0..<3_000 {
            var bytes = Array(seeds[round % seeds.count].utf8)
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                let at = Int.random(in: 0...bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes.insert(alphabet.randomElement(using: &random)!, at: at)
                case 1: if at < bytes.count { bytes.remove(at: at) }
                default: bytes.insert(contentsOf: bytes[at...].prefix(8), at: at)
                }
            }
            for format in [nil] + TranscriptFormat.allCases.map(Optional.some) {
                guard let document = try? TranscriptReader.read(bytes, format: format) else { continue }
                for cue in document.cues {
                    XCTAssertFalse(cue.text.unicodeScalars.contains { SafeText.isUnsafe($0) }, "\(bytes)")
                    XCTAssertFalse(cue.text.isEmpty)
                    if let start = cue.start { XCTAssertTrue(start.isFinite && start >= 0) }
                }
            }
            _ = try? ChapterList.read(bytes)
        }
    }
}
