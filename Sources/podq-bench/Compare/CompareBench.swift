import Crypto
import Foundation
import PodqTestSupport

/// `podq-bench compare [--quick]`: podq against curl, wget and aria2c, all downloading from the same
/// nginx on 127.0.0.1, and `podq parse` against Python's podcastparser and feedparser; each figure the
/// median of `runs` runs (`fastRuns` for rows a and b) with the tools taking turns. Every download is compared byte for byte with
/// its source; a wrong file fails the bench. The full run writes docs/PERFORMANCE.md's table.
struct CompareBench {
    struct Plan {
        var runs: Int
        /// Rounds of rows a and b, a second or two each: more of them, so that a noisy machine's slow
        /// runs (this one's come in bursts that double a run's time) do not decide the median.
        var fastRuns: Int
        var single: Int64
        var parallelCount: Int
        var parallelSize: Int64
        var small: Int64
        var huge: Int64?
        var slowDiskSize: Int64
        var slowDiskRate: Int
        var resumeSize: Int64
        var resumeRate: Int
        /// The file of row f, served at `resumeRate` a connection.
        var throttledSize: Int64
        var feedItems: Int
        var tuiRuns: Int

        static let full = Plan(
            runs: 5, fastRuns: 11, single: 1 << 30, parallelCount: 50, parallelSize: 20 << 20, small: 100 << 20, huge: 4 << 30,
            slowDiskSize: 64 << 20, slowDiskRate: 16_000_000, resumeSize: 200 << 20, resumeRate: 40_000_000, throttledSize: 1 << 30,
            feedItems: 5_000, tuiRuns: 5)
        static let quick = Plan(
            runs: 1, fastRuns: 1, single: 64 << 20, parallelCount: 10, parallelSize: 8 << 20, small: 16 << 20, huge: nil,
            slowDiskSize: 16 << 20, slowDiskRate: 16_000_000, resumeSize: 32 << 20, resumeRate: 16_000_000, throttledSize: 64 << 20,
            feedItems: 500, tuiRuns: 0)
    }

    let plan: Plan
    let tools: [Tool]
    let cache: String
    let out: String
    let logs: String
    let repo: String
    /// bench/measure.c, built: runs a command and reports its wall time, CPU and peak RSS.
    let measure: String
    var report = BenchReport()

    init(plan: Plan, repo: String, out: String?) throws {
        self.plan = plan
        self.repo = repo
        cache = repo + "/.build/bench/files"
        logs = repo + "/.build/bench/logs"
        self.out = out ?? Self.defaultOutput()
        for folder in [cache, logs, self.out] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        measure = try CHelper.build("measure", repo: repo, into: logs)
        tools = Tool.allCases.filter(\.isInstalled)
        let missing = Tool.allCases.filter { !tools.contains($0) }
        if !missing.isEmpty {
            throw BenchError.setup("not installed: \(missing.map(\.rawValue).joined(separator: ", ")) (make bench-deps installs them)")
        }
    }

    /// RAM-backed /dev/shm when it has room, so the disk's noise stays out of the comparison.
    static func defaultOutput() -> String {
        var info = statvfs()
        if statvfs("/dev/shm", &info) == 0, UInt64(info.f_bavail) * UInt64(info.f_frsize) > 6 << 30 {
            return "/dev/shm/podq-bench"
        }
        return NSTemporaryDirectory() + "podq-bench-out"
    }

    mutating func run() async throws {
        report.machine = Machine.describe(output: out)
        report.versions = tools.map(\.version) + [Nginx.version(), Machine.python()]
        report.rounds = plan.fastRuns == plan.runs ? "\(plan.runs) runs" : "\(plan.fastRuns) runs for rows a and b, \(plan.runs) for the others"
        // Made before nginx starts: its Repr-Digest is in nginx's config.
        try BenchFiles.make(cache + "/throttled.bin", size: plan.throttledSize, seed: 6)
        let digest = Data(PatternSource(seed: 6, length: plan.throttledSize).digest(using: SHA256.self)).base64EncodedString()
        let nginx = try Nginx(
            root: cache, prefix: repo + "/.build/bench/nginx", slowRate: plan.resumeRate, digests: ["throttled.bin": "sha-256=:\(digest):"])
        defer { nginx.stop() }
        for tool in tools { BenchFiles.evictFromPageCache(program: tool.executable) }
        try await single(nginx)
        try parallel(nginx)
        try memory(nginx)
        try resume(nginx)
        try feeds(nginx)
        try throttled(nginx)
        if plan.tuiRuns > 0 { try await tui() }
        try? FileManager.default.removeItem(atPath: out)
    }

    // MARK: Rows

    /// (a) One large file.
    mutating func single(_ nginx: Nginx) async throws {
        try BenchFiles.make(cache + "/single.bin", size: plan.single, seed: 1)
        let samples = try rounds(runs: plan.fastRuns) { tool, folder, home in
            try Sample.run(tool.single(url: nginx.url("single.bin"), name: "single.bin", folder: folder, home: home), measure: measure, logs: logs)
        } check: { tool, folder in
            try DownloadCheck.same(folder + "/single.bin", as: cache + "/single.bin", tool: tool)
        }
        report.add(.throughput(title: "a. one \(Self.size(plan.single)) file", bytes: plan.single, samples: samples))
    }

    /// (b) Many files at once.
    mutating func parallel(_ nginx: Nginx) throws {
        let names = (1...plan.parallelCount).map { String(format: "p%02d.bin", $0) }
        for (i, name) in names.enumerated() { try BenchFiles.make(cache + "/" + name, size: plan.parallelSize, seed: UInt64(100 + i)) }
        let files = names.map { (url: nginx.url($0), name: $0) }
        let listPath = logs + "/aria2-list.txt"
        let samples = try rounds(tools: tools.filter { $0 != .wget }, runs: plan.fastRuns) { tool, folder, home in
            guard let command = try tool.parallel(files, folder: folder, home: home, list: listPath) else { return nil }
            return try Sample.run(command, measure: measure, logs: logs)
        } check: { tool, folder in
            for name in names { try DownloadCheck.same(folder + "/" + name, as: cache + "/" + name, tool: tool) }
        }
        report.add(
            .throughput(
                title: "b. \(plan.parallelCount) files of \(Self.size(plan.parallelSize)) at once",
                bytes: plan.parallelSize * Int64(plan.parallelCount), samples: samples,
                note:
                    "podq `download --jobs \(plan.parallelCount) --per-host \(plan.parallelCount)` (one host here), `curl --parallel`, `aria2c -j \(plan.parallelCount)`; wget has no parallel mode"
            ))
    }

    /// (c) Peak RSS with a small and a huge file, and with a disk slower than the network. podq uses one
    /// connection, as the others do: the row asks whether memory grows with the file, and a 4 GiB file
    /// would otherwise be split into segments (their memory is row g's).
    mutating func memory(_ nginx: Nginx) throws {
        try BenchFiles.make(cache + "/small.bin", size: plan.small, seed: 2)
        var rows: [(String, [Tool: Sample])] = []
        let small = try rounds { tool, folder, home in
            try Sample.run(
                tool.single(url: nginx.url("small.bin"), name: "small.bin", folder: folder, home: home, connections: 1), measure: measure, logs: logs)
        } check: { tool, folder in
            try DownloadCheck.same(folder + "/small.bin", as: cache + "/small.bin", tool: tool)
        }
        rows.append(("\(Self.size(plan.small)) file", small))
        if let huge = plan.huge {
            try BenchFiles.make(cache + "/huge.bin", size: huge, seed: 3)
            let samples = try rounds { tool, folder, home in
                try Sample.run(
                    tool.single(url: nginx.url("huge.bin"), name: "huge.bin", folder: folder, home: home, connections: 1), measure: measure, logs: logs)
            } check: { tool, folder in
                try DownloadCheck.same(folder + "/huge.bin", as: cache + "/huge.bin", tool: tool)
            }
            rows.append(("\(Self.size(huge)) file", samples))
        }
        let throttle = try CHelper.build("slow-write", repo: repo, into: logs, shared: true)
        try BenchFiles.make(cache + "/slowdisk.bin", size: plan.slowDiskSize, seed: 4)
        let environment = ["LD_PRELOAD": throttle, "PODQ_BENCH_WRITE_RATE": String(plan.slowDiskRate)]
        let slow = try rounds { tool, folder, home in
            try Sample.run(
                tool.single(url: nginx.url("slowdisk.bin"), name: "slowdisk.bin", folder: folder, home: home, connections: 1), measure: measure,
                environment: environment,
                logs: logs)
        } check: { tool, folder in
            try DownloadCheck.same(folder + "/slowdisk.bin", as: cache + "/slowdisk.bin", tool: tool)
        }
        rows.append(("\(Self.size(plan.slowDiskSize)), disk writing \(plan.slowDiskRate / 1_000_000) MB/s", slow))
        report.add(.memory(title: "c. peak RSS (podq on one connection, as the others)", rows: rows))
    }

    /// (d) Killed (SIGKILL) halfway, then resumed: bytes the server sent beyond the file's size.
    mutating func resume(_ nginx: Nginx) throws {
        try BenchFiles.make(cache + "/resume.bin", size: plan.resumeSize, seed: 5)
        let url = nginx.url("resume.bin", slow: true)
        let halfway = Double(plan.resumeSize) / Double(plan.resumeRate) / 2
        let logs = self.logs
        let size = plan.resumeSize
        let samples = try rounds { tool, folder, home in
            nginx.clearLog()
            // One connection, as every other tool here: the row compares resumes of one stream.
            let first = tool.single(url: url, name: "resume.bin", folder: folder, home: home, connections: 1)
            let child = try ChildProcess(executable: first[0], arguments: Array(first.dropFirst()), directory: logs)
            usleep(UInt32(halfway * 1e6))
            child.send(SIGKILL)
            child.wait(timeout: 10)
            var sample = try Sample.run(tool.resume(url: url, name: "resume.bin", folder: folder, home: home), measure: measure, logs: logs)
            usleep(100_000)  // nginx writes the log line when the connection ends
            sample.extra = Double(nginx.bytesSent(for: "resume.bin") - size)
            return sample
        } check: { tool, folder in
            try DownloadCheck.same(folder + "/resume.bin", as: cache + "/resume.bin", tool: tool)
        }
        report.add(
            .resume(
                title:
                    "d. \(Self.size(plan.resumeSize)) at \(plan.resumeRate / 1_000_000) MB/s, SIGKILL at \(String(format: "%.1f", halfway)) s, then resumed (podq on one connection, as the others)",
                samples: samples))
    }

    /// (g) One file from a server that throttles each connection (nginx `limit_rate`): podq's
    /// segmented download against the others' defaults (aria2c opens one connection a server unless told).
    ///
    /// podq splits a file only when its digest is known before its bytes (here nginx's `Repr-Digest`);
    /// the same file without one (g2) comes over one connection, as curl's does: what the promise
    /// that a completed file is one version costs where no digest is given.
    mutating func throttled(_ nginx: Nginx) throws {
        let rate = "nginx limit_rate \(plan.resumeRate / 1_000_000) MB/s a connection"
        report.add(
            .throughput(
                title: "g. one \(Self.size(plan.throttledSize)) file with its Repr-Digest, \(rate)", bytes: plan.throttledSize,
                samples: try throttledRounds(url: nginx.digestURL("throttled.bin")),
                note:
                    "podq with its defaults: 4 segments over 4 connections, each checked with If-Range, the whole against the digest; the others with theirs (one connection)"
            ))
        report.add(
            .throughput(
                title: "g2. the same file without a digest, \(rate)", bytes: plan.throttledSize,
                samples: try throttledRounds(url: nginx.url("throttled.bin", slow: true), tools: [.podq, .curl]),
                note: "podq splits no file whose digest is unknown before its bytes (docs/FILES.md): one connection, as curl"))
    }

    /// Every tool (or `tools`) fetching the throttled file from `url`, each file checked.
    private func throttledRounds(url: String, tools: [Tool]? = nil) throws -> [Tool: Sample] {
        try rounds(tools: tools) { tool, folder, home in
            try Sample.run(tool.single(url: url, name: "throttled.bin", folder: folder, home: home), measure: measure, logs: logs)
        } check: { tool, folder in
            try DownloadCheck.same(folder + "/throttled.bin", as: cache + "/throttled.bin", tool: tool)
        }
    }

    /// (e) `podq parse` against podcastparser and feedparser on the same feed.
    mutating func feeds(_ nginx: Nginx) throws {
        let path = cache + "/feed-\(plan.feedItems).xml"
        if DownloadCheck.size(path) == nil { try BenchMain.generateFeed(items: plan.feedItems, to: path) }
        let script = repo + "/bench/parse_feed.py"
        let parsers: [(String, [String])] = [
            ("podq parse", [ChildProcess.podqExecutable, "parse", "--json", path]),
            ("podcastparser", ["python3", script, "podcastparser", path]),
            ("feedparser", ["python3", script, "feedparser", path]),
        ]
        var samples: [String: [Sample]] = [:]
        var urls: [String: [String]] = [:]
        for round in 0..<plan.runs {
            for i in 0..<parsers.count {
                let (name, command) = parsers[(i + round) % parsers.count]
                let run: (sample: Sample, output: String)
                do {
                    run = try Sample.runReadingOutput(command, measure: measure, logs: logs, timeout: 600)
                } catch {
                    throw BenchError.setup("\(name) failed: \(error) (make bench-deps installs podcastparser and feedparser)")
                }
                if round == 0 { urls[name] = try Self.enclosures(json: run.output, podq: name == "podq parse") }
                samples[name, default: []].append(run.sample)
            }
        }
        let reference = urls["podq parse"] ?? []
        guard reference.count == plan.feedItems else { throw BenchError.mismatch("podq parse read \(reference.count) of \(plan.feedItems) enclosures") }
        for (name, list) in urls where list.sorted() != reference.sorted() {
            throw BenchError.mismatch("\(name) read \(list.count) enclosures, not the same as podq's \(reference.count)")
        }
        let size = DownloadCheck.size(path) ?? 0
        report.add(
            .parsers(
                title: "e. parse a \(plan.feedItems)-item feed (\(String(format: "%.1f", Double(size) / 1e6)) MB)",
                order: parsers.map(\.0), samples: samples.mapValues(Sample.median)))
        print("e. feed parsing: every parser read the same \(reference.count) enclosures")
    }

    /// (f) The TUI's CPU against `podq download` on the same queue with 50 downloads in flight.
    mutating func tui() async throws {
        var results: [TUIBench.CPUResult] = []
        for _ in 0..<plan.tuiRuns {
            guard let result = try await TUIBench.cpu(downloads: 50, size: 2_000_000, rate: 400_000) else { return }
            results.append(result)
        }
        report.add(.tui(results))
    }

    // MARK: Helpers

    /// Runs `body` for every tool, `runs` times (`plan.runs` unless given), the starting tool moving on
    /// each round; checks every result; returns the median sample per tool.
    func rounds(
        tools only: [Tool]? = nil, runs: Int? = nil, _ body: (Tool, String, String) throws -> Sample?,
        check: (Tool, String) throws -> Void
    ) throws -> [Tool: Sample] {
        let list = only ?? tools
        var samples: [Tool: [Sample]] = [:]
        for round in 0..<(runs ?? plan.runs) {
            for i in 0..<list.count {
                let tool = list[(i + round) % list.count]
                let folder = out + "/" + tool.rawValue
                let home = out + "/home-" + tool.rawValue
                try? FileManager.default.removeItem(atPath: folder)
                try? FileManager.default.removeItem(atPath: home)
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                guard let sample = try body(tool, folder, home) else { continue }
                try check(tool, folder)
                samples[tool, default: []].append(sample)
                try? FileManager.default.removeItem(atPath: folder)
                try? FileManager.default.removeItem(atPath: home)
            }
        }
        return samples.mapValues(Sample.median)
    }

    static func enclosures(json: String, podq: Bool) throws -> [String] {
        guard let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return [] }
        if podq {
            let episodes = object["episodes"] as? [[String: Any]] ?? []
            return episodes.flatMap { ($0["enclosures"] as? [[String: Any]] ?? []).compactMap { $0["url"] as? String } }
        }
        return object["enclosures"] as? [String] ?? []
    }

    static func size(_ bytes: Int64) -> String {
        bytes >= 1 << 30 ? "\(bytes >> 30) GiB" : "\(bytes >> 20) MiB"
    }
}

/// Builds a helper from bench/NAME.c: a program, or with `shared` a preloadable library.
enum CHelper {
    static func build(_ name: String, repo: String, into folder: String, shared: Bool = false) throws -> String {
        let output = folder + "/" + name + (shared ? ".so" : "")
        let flags = shared ? ["-shared", "-fPIC", "-O2"] : ["-O2"]
        for compiler in ["cc", "gcc", "clang"] {
            if let child = try? ChildProcess(executable: compiler, arguments: flags + [repo + "/bench/\(name).c", "-o", output, "-ldl"], directory: folder),
                child.wait(timeout: 60).code == 0
            {
                unlink(child.stdoutPath)
                unlink(child.stderrPath)
                return output
            }
        }
        throw BenchError.setup("cannot compile bench/\(name).c: no C compiler (cc, gcc or clang)")
    }
}
