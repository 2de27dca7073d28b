import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqSession
import PodqUI

/// The parts of the docs generated from the code: the config keys, the TUI's keys, the exit codes, the
/// feed limits, and README's "Why podq" table from the bench's own tables. Each sits in its document between two markers,
/// `<!-- generated: NAME (make docs) -->` and `<!-- end generated: NAME -->` (`.\" generated: …` in
/// the man page's source), and is rewritten by `make docs` (`podq-bench docs --write`); DocsTests
/// fails while one is stale, so the docs cannot drift from the code.
public enum GeneratedDocs {
    /// One generated section of one file.
    public struct Section: Sendable, Equatable {
        /// The file, from the repository's root.
        public let file: String
        /// The name in its markers.
        public let name: String
        /// What goes between the markers, ending in a newline.
        public let text: String
    }

    /// Every generated section; `performance` is docs/PERFORMANCE.md, whose bench tables README's
    /// "Why podq" table is made from (``BenchSummary``).
    public static func sections(performance: String) -> [Section] {
        let mdocKeys = mdocTUIKeys(), mdocExit = mdocExitStatus(), mdocConfig = mdocConfigKeys()
        return [
            Section(file: "README.md", name: "why-podq", text: BenchSummary.markdown(performance: performance)),
            Section(file: "README.md", name: "tui-keys", text: markdownTUIKeys()),
            Section(file: "docs/CONFIG.md", name: "config-keys", text: markdownConfigKeys()),
            Section(file: "docs/CONFIG.md", name: "key-bindings", text: markdownKeyBindings()),
            Section(file: "docs/COMMANDS.md", name: "exit-codes", text: markdownExitCodes()),
            Section(file: "docs/FEEDS.md", name: "feed-limits", text: markdownFeedLimits()),
            Section(file: "docs/podq-sections.mdoc", name: "tui-keys", text: mdocKeys),
            Section(file: "docs/podq-sections.mdoc", name: "exit-status", text: mdocExit),
            Section(file: "docs/podq-sections.mdoc", name: "config-keys", text: mdocConfig),
            // The page `make man` builds holds the same text: a section changed without `make man` is stale there.
            Section(file: "docs/podq.1", name: "tui-keys", text: mdocKeys),
            Section(file: "docs/podq.1", name: "exit-status", text: mdocExit),
            Section(file: "docs/podq.1", name: "config-keys", text: mdocConfig),
        ]
    }

    /// A document whose markers are missing or out of order.
    public struct MarkerError: Error, CustomStringConvertible {
        public let file: String, name: String
        public var description: String { "\(file): no '\(name)' section between generated markers (docs/ARCHITECTURE.md, \"Docs\")" }
    }

    /// `document` (the contents of `file`) with each of its generated sections replaced by the code's
    /// (and by the bench's, from `performance`: docs/PERFORMANCE.md).
    public static func render(_ document: String, file: String, performance: String) throws -> String {
        var text = document
        for section in sections(performance: performance) where section.file == file {
            let (begin, end) = markers(section.name, mdoc: file.hasSuffix(".mdoc") || file.hasSuffix(".1"))
            guard let open = text.firstRange(of: begin), let close = text[open.upperBound...].firstRange(of: end),
                let lineEnd = text[open.upperBound...].firstIndex(of: "\n")
            else { throw MarkerError(file: file, name: section.name) }
            text.replaceSubrange(text.index(after: lineEnd)..<close.lowerBound, with: section.text)
        }
        return text
    }

    /// The files with generated sections.
    public static var files: [String] {
        var seen: [String] = []
        for section in sections(performance: "") where !seen.contains(section.file) { seen.append(section.file) }
        return seen
    }

    private static func markers(_ name: String, mdoc: Bool) -> (String, String) {
        mdoc
            ? (".\\\" generated: \(name) (make docs)", ".\\\" end generated: \(name)")
            : ("<!-- generated: \(name) (make docs) -->", "<!-- end generated: \(name) -->")
    }

    /// A markdown table cell: `|` escaped, one line.
    private static func cell(_ text: String) -> String {
        text.replacingEvery("|", with: "\\|").replacingEvery("\n", with: " ")
    }

    static func markdownTUIKeys() -> String {
        "| key | action |\n|---|---|\n" + KeyTable.rows.map { "| \(cell(KeyTable.keys($0))) | \(cell($0.full)) |\n" }.joined()
    }

    static func markdownConfigKeys() -> String {
        "| key | default | meaning |\n|---|---|---|\n"
            + Settings.keys.map { "| `\($0.name)` | \(cell($0.defaultValue)) | \(cell($0.meaning)) |\n" }.joined()
    }

    /// Two actions a row, as the CONFIG.md table always was.
    static func markdownKeyBindings() -> String {
        let actions = KeyBindings.Action.allCases
        var text = "| action | default | | action | default |\n|---|---|---|---|---|\n"
        for start in stride(from: 0, to: actions.count, by: 2) {
            let (left, right) = (actions[start], start + 1 < actions.count ? actions[start + 1] : nil)
            text += "| `\(left.rawValue)` | `\(KeyBindings.defaults[left]!)` | | "
            text += right.map { "`\($0.rawValue)` | `\(KeyBindings.defaults[$0]!)` |\n" } ?? "| |\n"
        }
        return text
    }

    static func markdownExitCodes() -> String {
        "| code | when |\n|---|---|\n" + ExitCodes.table.map { "| `\($0.code)` | \(cell($0.when)) |\n" }.joined()
    }

    static func markdownFeedLimits() -> String {
        let limits = FeedLimits.standard
        let mib = { (bytes: Int64) in "\(bytes >> 20) MiB" }
        return """
            | what | limit | past it |
            |---|---|---|
            | the file | \(limits.fileSize / 1_000_000) MB (`feed-size-limit` in the config) | refused while it downloads |
            | text added by entity expansion | the file's own size plus \(mib(limits.expansion)) | refused: "the feed's entities expand to more than \(mib(limits.expansion))…" (one large entity referenced many times: quadratic expansion, which libxml2's own amplification limit lets through) |
            | one element's text (a title, the show notes) | \(mib(Int64(limits.fieldBytes))) | refused, naming the element |
            | items | \(Self.grouped(limits.items)) | refused (never a silent part of the feed) |
            | entity loops (billion laughs) | an entity whose value refers to another entity (not `&amp;` and the other four XML predefines, nor `&#…;`) is refused as it is declared; libxml2's amplification limits behind it | refused |

            """
    }

    /// An mdoc text line: backticks dropped, ` · ` as `; `, and a leading dot or quote escaped.
    private static func mdocLine(_ text: String) -> String {
        let line = text.replacingEvery("`", with: "").replacingEvery(" · ", with: "; ")
        return line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : line
    }

    static func mdocTUIKeys() -> String {
        KeyTable.rows.map { row in
            let keys = KeyTable.keys(row).replacingEvery("  ", with: " ")
            return ".It Li " + (keys.contains(" ") ? "\"\(keys)\"" : keys) + "\n" + mdocLine(row.brief) + "\n"
        }.joined()
    }

    /// The config keys for the man page: each key, its default and its meaning, as plain text.
    static func mdocConfigKeys() -> String {
        Settings.keys.map { key in
            ".It Cm \(key.name)\n" + mdocLine(plain("\(key.meaning). Default: \(key.defaultValue).")) + "\n"
        }.joined()
    }

    /// The config keys as `podq help config` prints them: each key and its default, then its meaning
    /// wrapped at `width` and indented.
    public static func configHelp(width: Int = 80) -> String {
        var text = "The config file: <home>/config (podq --home, $PODQ_HOME), one `key = value` a line; `#` starts a comment.\n"
        text += "Every key is optional; docs/CONFIG.md has more. `podq set` changes one podcast's own settings.\n\n"
        for key in Settings.keys {
            text += "\(key.name)  (default: \(plain(key.defaultValue)))\n"
            text += wrap(plain(key.meaning) + ".", width: width - 4).map { "    " + $0 + "\n" }.joined() + "\n"
        }
        return text
    }

    /// Markdown's marks taken out of a text: `code`, **bold**.
    static func plain(_ text: String) -> String {
        text.replacingEvery("`", with: "").replacingEvery("**", with: "")
    }

    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = [], line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    static func mdocExitStatus() -> String {
        ExitCodes.table.map { ".It \($0.code)\n" + mdocLine($0.when) + ".\n" }.joined()
    }

    /// `10,000`: thousands grouped with commas, as the docs write numbers.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (i, digit) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return (value < 0 ? "-" : "") + out
    }
}
