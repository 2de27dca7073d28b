import Foundation

/// The comparison's results as Markdown: the machine, the versions, one table per row of issue 6's
/// list with ratios against the best peer, and the targets met or missed.
struct BenchReport {
    enum Row {
        case throughput(title: String, bytes: Int64, samples: [Tool: Sample], note: String? = nil)
        case memory(title: String, rows: [(String, [Tool: Sample])])
        case resume(title: String, samples: [Tool: Sample])
        case parsers(title: String, order: [String], samples: [String: Sample])
        case tui([TUIBench.CPUResult])
    }

    var machine = ""
    var versions: [String] = []
    /// How many rounds each row ran, as the text says it.
    var rounds = "the runs"
    var date = ISO8601DateFormatter().string(from: Date()).prefix(10)
    private(set) var rows: [Row] = []
    private(set) var targets: [(String, String, Bool)] = []

    mutating func add(_ row: Row) {
        rows.append(row)
        print(Self.markdown(row))
        targets += Self.targets(row)
    }

    /// The whole section.
    var markdown: String {
        var text = "Measured by `make bench` on \(date): \(machine).\n\n"
        text += "Versions: " + versions.map { "`\($0)`" }.joined(separator: ", ") + ".\n\n"
        text += "Each figure is the median of \(rounds), the tools taking turns; every file was compared byte for byte with its source. "
        text += "Downloads go to RAM-backed `/dev/shm` so that the disk's noise stays out (podq's fsync at the end is then free; on a disk it is not). "
        text += "Ratios compare podq with the best of its peers: above 1.0x podq is ahead for throughput, below 1.0x it is ahead for CPU and memory.\n\n"
        text += "| target | measured | met |\n|---|---|---|\n"
        for (target, measured, met) in targets { text += "| \(target) | \(measured) | \(met ? "yes" : "**no**") |\n" }
        for row in rows { text += "\n" + Self.markdown(row) }
        return text
    }

    /// Replaces the generated part of `path` (between the bench markers), keeping the rest.
    func write(to path: String) throws {
        try Self.replace(between: "<!-- make bench: start -->", and: "<!-- make bench: end -->", in: path, with: markdown)
    }

    /// Replaces what stands between the markers `start` and `end` in `path` with `text` (adds the
    /// block at the end when the markers are missing), keeping the rest of the file.
    static func replace(between start: String, and end: String, in path: String, with text: String) throws {
        var document = (try? String(contentsOfFile: path, encoding: .utf8)) ?? "# Performance\n\n"
        let block = start + "\n" + text + end
        if let from = document.range(of: start), let to = document.range(of: end), from.lowerBound < to.upperBound {
            document.replaceSubrange(from.lowerBound..<to.upperBound, with: block)
        } else {
            document += "\n" + block + "\n"
        }
        try document.write(toFile: path, atomically: true, encoding: .utf8)
    }

    // MARK: Tables

    static func markdown(_ row: Row) -> String {
        switch row {
        case .throughput(let title, let bytes, let samples, let note):
            var text = "### \(title)\n\n" + (note.map { $0 + ".\n\n" } ?? "")
            text += "| tool | wall s | MB/s | CPU s | peak RSS MB |\n|---|---|---|---|---|\n"
            for tool in Tool.allCases {
                if let s = samples[tool] {
                    text += "| \(tool.rawValue) | \(f(s.wall, 2)) | \(f(Double(bytes) / 1e6 / s.wall, 0)) | \(f(s.cpu, 2)) | \(mb(s.rss)) |\n"
                }
            }
            if let podq = samples[.podq], let best = bestPeer(samples, by: { -$0.wall }) {
                let fewestCPU = samples.filter { $0.key != .podq }.values.map(\.cpu).min() ?? podq.cpu
                text += "\npodq: **\(f(best.1.wall / podq.wall, 2))x** the throughput of the fastest peer (\(best.0.rawValue)), "
                text += "\(f(podq.cpu / fewestCPU, 2))x the CPU of the most frugal.\n"
            }
            return text
        case .memory(let title, let rows):
            var text =
                "### \(title)\n\n| file | " + Tool.allCases.map(\.rawValue).joined(separator: " | ") + " |\n|---|"
                + String(repeating: "---|", count: Tool.allCases.count) + "\n"
            for (label, samples) in rows {
                text += "| \(label) | " + Tool.allCases.map { samples[$0].map { mb($0.rss) + " MB" } ?? "–" }.joined(separator: " | ") + " |\n"
            }
            text += "\nThe slow disk is bench/slow-write.c, preloaded: every write(2) and fwrite(3) to a file waits so the process writes at that rate.\n"
            return text
        case .resume(let title, let samples):
            var text = "### \(title)\n\n| tool | fetched twice | resume wall s | resume CPU s |\n|---|---|---|---|\n"
            for tool in Tool.allCases {
                if let s = samples[tool] {
                    text += "| \(tool.rawValue) | \(kb(s.extra)) | \(f(s.wall, 2)) | \(f(s.cpu, 2)) |\n"
                }
            }
            text +=
                "\n\"Fetched twice\" is what nginx sent for the file over both runs minus its size: bytes the killed process had received but not written.\n"
            return text
        case .parsers(let title, let order, let samples):
            var text = "### \(title)\n\n| parser | wall s | CPU s | peak RSS MB |\n|---|---|---|---|\n"
            for name in order { if let s = samples[name] { text += "| \(name) | \(f(s.wall, 3)) | \(f(s.cpu, 2)) | \(mb(s.rss)) |\n" } }
            if let podq = samples["podq parse"], let pp = samples["podcastparser"] {
                text += "\npodq: **\(f(pp.wall / podq.wall, 1))x** as fast as podcastparser"
                if let fp = samples["feedparser"] { text += ", \(f(fp.wall / podq.wall, 1))x feedparser" }
                text += " (whole processes, interpreter start included).\n"
            }
            return text
        case .tui(let results):
            let ratio = Sample.median(results.map { Sample(wall: 0, cpu: $0.ratio, rss: 0) }).cpu
            let idle = Sample.median(results.map { Sample(wall: 0, cpu: $0.idlePercent, rss: 0) }).cpu
            var text = "### f. the TUI with 50 downloads in flight (2 MB each at 400 KB/s, in-process server)\n\n"
            text += "| run | headless CPU s | TUI CPU s | ratio |\n|---|---|---|---|\n"
            for (i, r) in results.enumerated() { text += "| \(i + 1) | \(f(r.headless, 2)) | \(f(r.tui, 2)) | \(f(r.ratio, 2))x |\n" }
            text += "\nMedian **\(f(ratio, 2))x**; the idle TUI used \(f(idle, 2))% of a core.\n"
            return text
        }
    }

    static func targets(_ row: Row) -> [(String, String, Bool)] {
        switch row {
        case .throughput(let title, _, let samples, _):
            guard let podq = samples[.podq], let curl = samples[.curl] else { return [] }
            if title.hasPrefix("a.") {
                return [
                    ("a. ≥ 1.0x curl's throughput", "\(f(curl.wall / podq.wall, 2))x", podq.wall <= curl.wall),
                    ("a. no more CPU than curl", "\(f(podq.cpu, 2)) vs \(f(curl.cpu, 2)) s", podq.cpu <= curl.cpu),
                    // Issue 45's goal: one download at curl's memory.
                    ("a. peak RSS ≤ 12 MB (curl's)", "\(mb(podq.rss)) MB", podq.rss <= 12_000_000),
                ]
            }
            if title.hasPrefix("g2.") {
                return [
                    (
                        "g2. without a digest: one connection, ≥ 0.9x curl", "\(f(curl.wall / podq.wall, 2))x",
                        curl.wall / podq.wall >= 0.9
                    )
                ]
            }
            if title.hasPrefix("g.") {
                return [
                    (
                        "g. segmented (with a digest): ≥ 1.5x curl from a server that throttles each connection", "\(f(curl.wall / podq.wall, 2))x",
                        curl.wall / podq.wall >= 1.5
                    )
                ]
            }
            return [
                ("b. ≥ 1.0x `curl --parallel`", "\(f(curl.wall / podq.wall, 2))x", podq.wall <= curl.wall),
                // Issue 45's goal: fifty at once at curl's CPU.
                ("b. no more CPU than `curl --parallel`", "\(f(podq.cpu, 2)) vs \(f(curl.cpu, 2)) s", podq.cpu <= curl.cpu),
                ("b. peak RSS ≤ 40 MB", "\(mb(podq.rss)) MB", podq.rss <= 40_000_000),
            ]
        case .memory(_, let rows):
            guard let small = rows.first?.1[Tool.podq]?.rss else { return [] }
            return rows.dropFirst().compactMap { label, samples in
                guard let rss = samples[.podq]?.rss else { return nil }
                return ("c. podq's RSS with a \(label) = with a \(rows[0].0) (± 2 MB)", "\(mb(rss)) vs \(mb(small)) MB", abs(rss - small) <= 2_000_000)
            }
        case .resume(_, let samples):
            guard let podq = samples[.podq] else { return [] }
            return [("d. nothing fetched twice beyond the in-flight window (≤ 1 MiB)", kb(podq.extra), podq.extra <= 1_048_576)]
        case .parsers(_, _, let samples):
            guard let podq = samples["podq parse"], let pp = samples["podcastparser"] else { return [] }
            return [("e. ≥ 10x podcastparser", "\(f(pp.wall / podq.wall, 1))x", pp.wall / podq.wall >= 10)]
        case .tui(let results):
            let ratio = Sample.median(results.map { Sample(wall: 0, cpu: $0.ratio, rss: 0) }).cpu
            return [("f. TUI CPU ≤ 1.2x headless", "\(f(ratio, 2))x", ratio <= 1.2)]
        }
    }

    static func bestPeer(_ samples: [Tool: Sample], by score: (Sample) -> Double) -> (Tool, Sample)? {
        samples.filter { $0.key != .podq }.max { score($0.value) < score($1.value) }.map { ($0.key, $0.value) }
    }

    static func f(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
    static func mb(_ bytes: Int64) -> String { f(Double(bytes) / 1e6, 1) }
    static func kb(_ bytes: Double) -> String { bytes < 1_000_000 ? "\(f(bytes / 1e3, 0)) KB" : "\(f(bytes / 1e6, 1)) MB" }
}

/// The machine and the Python used, for the report's header.
enum Machine {
    static func describe(output: String) -> String {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }.map {
                String($0.split(separator: ":", maxSplits: 1)[1]).trimmingCharacters(in: .whitespaces)
            } ?? "unknown CPU"
        let memory = Double(ProcessInfo.processInfo.physicalMemory) / Double(1 << 30)
        var name = utsname()
        uname(&name)
        let kernel = withUnsafePointer(to: &name.release) { $0.withMemoryRebound(to: CChar.self, capacity: 65) { String(cString: $0) } }
        let swift = Tool.firstLine(of: ["swift", "--version"]) ?? Tool.firstLine(of: ["swift", "--version"], stderr: true) ?? "Swift ?"
        return
            "\(ProcessInfo.processInfo.activeProcessorCount) × \(model), \(String(format: "%.0f", memory)) GiB RAM, Linux \(kernel), \(swift), downloads into \(output)"
    }

    static func python() -> String {
        let versions = Tool.firstLine(of: [
            "python3", "-c",
            "import sys, podcastparser, feedparser; print('Python %s, podcastparser %s, feedparser %s' % (sys.version.split()[0], getattr(podcastparser, '__version__', '?'), feedparser.__version__))",
        ])
        return versions ?? "python3 with podcastparser and feedparser: not installed"
    }
}
