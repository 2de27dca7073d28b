import CFeedXML
import FoundationEssentials
import Glibc
import PodqBase

/// Show notes as a terminal shows them: plain text in paragraphs, read from the feed's HTML by
/// libxml2's HTML parser (broken markup and every entity included, no network): tags go, blocks
/// and `<br>` end a paragraph, list items start with "• ", a link's address follows its text when the
/// text does not already say it, scripts and styles are dropped, and every paragraph is cleaned
/// (``SafeText``): nothing from the feed reaches the terminal raw.
public enum ShowNotes {
    /// The paragraphs of `notes` (HTML or plain text), without empty ones.
    public static func paragraphs(_ notes: String) -> [String] {
        guard notes.contains("<") else {
            // Plain text: its own lines are its paragraphs; only entities need reading.
            let text = notes.contains("&") ? markup(notes.replacingEvery("\n", with: "<br>")) : notes.components(separatedBy: "\n")
            return text.map(clean).filter { !$0.isEmpty }
        }
        return markup(notes).map(clean).filter { !$0.isEmpty }
    }

    private final class Collector {
        var paragraphs: [String] = []
        var line = ""

        func text(_ run: String) {
            line += run
        }

        func end() {
            paragraphs.append(line)
            line = ""
        }

        func link(_ href: String) {
            let address = href.trimmingWhitespace
            guard address.hasPrefix("http://") || address.hasPrefix("https://"), !line.contains(address) else { return }
            line += " <\(address)>"
        }
    }

    private static func markup(_ html: String) -> [String] {
        let collector = Collector()
        let box = Unmanaged.passUnretained(collector).toOpaque()
        var bytes = Array(html.utf8)
        bytes.append(0)
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { pointer in
                podq_html_text(pointer, Int32(buffer.count - 1), box) { context, text, kind in
                    guard let context else { return }
                    let collector = Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue()
                    switch kind {
                    case 0: if let text { collector.text(String(cString: text)) }
                    case 2:
                        collector.end()
                        collector.text("• ")
                    case 3: if let text { collector.link(String(cString: text)) }
                    default: collector.end()
                    }
                }
            }
        }
        guard status == 0 else { return [html] }
        collector.end()
        return collector.paragraphs
    }

    /// One paragraph: whitespace runs become one space, control characters go. One pass over the
    /// scalars into UTF-8 bytes (a `Character` test per letter cost the most of indexing 90 MB of notes).
    private static func clean(_ paragraph: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(paragraph.utf8.count)
        var pendingSpace = false
        for scalar in paragraph.unicodeScalars {
            let isSpace = scalar.isASCII ? (scalar == " " || (0x09...0x0D).contains(scalar.value)) : scalar.properties.isWhitespace
            if isSpace {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace {
                out.append(0x20)
                pendingSpace = false
            }
            if scalar.isASCII {
                out.append(UInt8(scalar.value))
            } else {
                UTF8.encode(scalar) { out.append($0) }
            }
        }
        return SafeText.clean(String(decoding: out, as: UTF8.self))
    }
}
