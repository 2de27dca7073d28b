import FoundationEssentials
import Glibc
import PodqBase

/// README's "Why podq" table, made from the tables `make bench` wrote into docs/PERFORMANCE.md, so that
/// the two never disagree: a new bench run and `make docs` change both.
enum BenchSummary {
    /// The rows of the markdown table under the heading that starts with `heading`, each row's cells
    /// by the table's column titles (lower-cased), keyed by the row's first cell.
    static func table(_ heading: String, in document: String) -> [String: [String: String]] {
        let lines = document.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix(heading) }) else { return [:] }
        var titles: [String] = []
        var rows: [String: [String: String]] = [:]
        for line in lines[(start + 1)...] {
            if line.hasPrefix("#") { break }
            guard line.hasPrefix("|") else {
                if !titles.isEmpty && !rows.isEmpty { break }
                continue
            }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingSpaces }
            if titles.isEmpty {
                titles = cells.map { $0.lowercased() }
            } else if !cells.allSatisfy({ $0.allSatisfy { "-: ".contains($0) } }), let key = cells.first {
                rows[key] = Dictionary(zip(titles, cells), uniquingKeysWith: { first, _ in first })
            }
        }
        return rows
    }

    /// The README section: what the last `make bench` measured, from `performance` (docs/PERFORMANCE.md).
    static func markdown(performance: String) -> String {
        let a = table("### a.", in: performance), b = table("### b.", in: performance), c = table("### c.", in: performance)
        let d = table("### d.", in: performance), e = table("### e.", in: performance), g = table("### g.", in: performance)
        func value(_ rows: [String: [String: String]], _ tool: String, _ column: String, bold: Bool = false) -> String {
            guard let cell = rows[tool]?[column], !cell.isEmpty else { return "—" }
            return bold ? "**\(cell)**" : cell
        }
        func number(_ rows: [String: [String: String]], _ tool: String, _ column: String) -> Double? {
            rows[tool]?[column].flatMap { Double($0.split(separator: " ").first ?? "") }
        }
        let date = performance.firstMatch(of: #/Measured by `make bench` on [0-9-]+/#).map { String($0.output) }
        var text = (date ?? "Measured by `make bench`") + " in one run against the same nginx on 127.0.0.1 (medians; the machine, "
        text += "versions and every figure are in `docs/PERFORMANCE.md`):\n\n"
        text += "| | podq | curl | wget | aria2c |\n|---|---|---|---|---|\n"
        let g2 = table("### g2.", in: performance)
        if !g.isEmpty {
            text += "| one 1 GiB file from a server that throttles each connection to 40 MB/s, MB/s (split when its digest is known: row g) | "
            text += "\(value(g, "podq", "mb/s", bold: true)) | \(value(g, "curl", "mb/s")) | \(value(g, "wget", "mb/s")) | \(value(g, "aria2c", "mb/s")) |\n"
        }
        if !g2.isEmpty {
            text += "| the same without a digest: one connection, MB/s (row g2) | \(value(g2, "podq", "mb/s", bold: true)) | \(value(g2, "curl", "mb/s")) "
            text += "| \(value(g2, "wget", "mb/s")) | \(value(g2, "aria2c", "mb/s")) |\n"
        }
        text += "| 50 files of 20 MiB at once, MB/s | \(value(b, "podq", "mb/s", bold: true)) | \(value(b, "curl", "mb/s")) (`--parallel`) "
        text += "| no parallel mode | \(value(b, "aria2c", "mb/s")) |\n"
        text += "| one 1 GiB file, MB/s | \(value(a, "podq", "mb/s", bold: true)) | \(value(a, "curl", "mb/s")) | \(value(a, "wget", "mb/s")) "
        text += "| \(value(a, "aria2c", "mb/s")) |\n"
        text += "| `kill -9` halfway through 200 MiB, then resume: bytes fetched twice | \(value(d, "podq", "fetched twice", bold: true)) "
        text += "| \(value(d, "curl", "fetched twice")) | \(value(d, "wget", "fetched twice")) | \(value(d, "aria2c", "fetched twice")) |\n"
        text += "| resume checked against the server (`If-Range` with the ETag, or 64 KiB compared) | **yes** | no (`-C -` trusts the file) "
        text += "| no (`-c` trusts the file) | control file |\n"
        let gib = c["4 GiB file"] ?? [:]
        text += "| peak memory: 4 GiB file / 50 files at once | \(gib["podq"] ?? "—") / \(value(b, "podq", "peak rss mb")) MB "
        text += "| \(gib["curl"] ?? "—") / \(value(b, "curl", "peak rss mb")) MB | \(gib["wget"] ?? "—") / — "
        text += "| \(gib["aria2c"] ?? "—") / \(value(b, "aria2c", "peak rss mb")) MB |\n"
        text += "| parse a 5,000-item feed, s | \(value(e, "podq parse", "wall s", bold: true)) | — | — | — |\n"
        text += "\nAgainst podcast clients' parsers in the same run: podcastparser (gPodder's) took \(value(e, "podcastparser", "wall s")) s and "
        text += "feedparser \(value(e, "feedparser", "wall s")) s on that feed."
        if let podq = number(b, "podq", "cpu s"), let curl = number(b, "curl", "cpu s"), curl > 0 {
            text += String(printf: " The CPU of 50 downloads at once is %.2fx curl's", podq / curl)
            text += podq > curl ? "; `docs/PERFORMANCE.md` has the profile and the plan." : "."
        }
        return text + "\n"
    }
}
