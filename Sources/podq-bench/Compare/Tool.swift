import Foundation
import PodqTestSupport

/// A downloader under comparison and its command lines, each tool with its default settings.
enum Tool: String, CaseIterable, Sendable {
    case podq, curl, wget, aria2c

    /// The program to run.
    var executable: String {
        switch self {
        case .podq: return ChildProcess.podqExecutable
        case .curl, .wget, .aria2c: return rawValue
        }
    }

    /// Downloads one URL into `folder/name`. `home` is podq's state folder (kept for a resume).
    /// `connections` pins podq's connections per download (nil: its default, segmented when it can).
    func single(url: String, name: String, folder: String, home: String, connections: Int? = nil) -> [String] {
        switch self {
        case .podq: return [executable, "download", "--home", home, "--download-dir", folder] + (connections.map { ["--connections", "\($0)"] } ?? []) + [url]
        case .curl: return [executable, "-s", "-f", "-o", folder + "/" + name, url]
        case .wget: return [executable, "-q", "-P", folder, url]
        case .aria2c: return [executable, "-q", "--allow-overwrite=true", "--auto-file-renaming=false", "-d", folder, "-o", name, url]
        }
    }

    /// Continues an interrupted ``single(url:name:folder:home:)``.
    func resume(url: String, name: String, folder: String, home: String) -> [String] {
        switch self {
        case .podq: return [executable, "download", "--home", home]
        case .curl: return [executable, "-s", "-f", "-C", "-", "-o", folder + "/" + name, url]
        case .wget: return [executable, "-q", "-c", "-P", folder, url]
        case .aria2c: return [executable, "-q", "-c", "--auto-file-renaming=false", "-d", folder, "-o", name, url]
        }
    }

    /// Downloads every URL at once with `jobs` connections; nil when the tool has no such mode (wget).
    func parallel(_ files: [(url: String, name: String)], folder: String, home: String, list: String) throws -> [String]? {
        switch self {
        case .podq:
            return [executable, "download", "--home", home, "--jobs", "\(files.count)", "--per-host", "\(files.count)", "--download-dir", folder]
                + files.map(\.url)
        case .curl:
            return [executable, "-s", "-f", "--parallel", "--parallel-max", "\(files.count)"]
                + files.flatMap { ["-o", folder + "/" + $0.name, $0.url] }
        case .wget:
            return nil
        case .aria2c:
            try files.map { "\($0.url)\n  out=\($0.name)\n" }.joined().write(toFile: list, atomically: true, encoding: .utf8)
            return [executable, "-q", "--allow-overwrite=true", "--auto-file-renaming=false", "-j", "\(files.count)", "-d", folder, "-i", list]
        }
    }

    /// The tool's version line.
    var version: String {
        switch self {
        case .podq: return Self.firstLine(of: [executable, "--version"]) ?? "podq ?"  // "podq 0.1.0 (commit)"
        case .curl: return Self.firstLine(of: [executable, "--version"]).map { $0.split(separator: " ").prefix(2).joined(separator: " ") } ?? "curl ?"
        case .wget: return Self.firstLine(of: [executable, "--version"]).map { $0.split(separator: " ").prefix(3).joined(separator: " ") } ?? "wget ?"
        case .aria2c: return Self.firstLine(of: [executable, "--version"]) ?? "aria2c ?"
        }
    }

    /// True when the program can be started.
    var isInstalled: Bool { Self.firstLine(of: [executable, "--version"]) != nil }

    /// The first line a command prints (on stderr when `stderr`), or nil when it cannot run.
    static func firstLine(of command: [String], stderr: Bool = false) -> String? {
        let dir = NSTemporaryDirectory()
        guard let child = try? ChildProcess(executable: command[0], arguments: Array(command.dropFirst()), directory: dir) else { return nil }
        let exit = child.wait(timeout: 30)
        defer {
            unlink(child.stdoutPath)
            unlink(child.stderrPath)
        }
        guard exit.code == 0 else { return nil }
        let text = stderr ? child.standardError : child.standardOutput
        return text.split(separator: "\n").first.map { String($0).trimmingCharacters(in: .whitespaces) }
    }
}

/// One run of a command: wall time, CPU (user + system) and peak RSS.
struct Sample: Sendable {
    var wall: Double
    var cpu: Double
    var rss: Int64
    /// Anything else the row measures (bytes fetched twice, a ratio).
    var extra: Double = 0

    /// Runs `command` to the end under `measure` (bench/measure.c); throws when it fails.
    static func run(_ command: [String], measure: String, environment: [String: String] = [:], logs: String, timeout: Double = 900) throws -> Sample {
        try runReadingOutput(command, measure: measure, environment: environment, logs: logs, timeout: timeout).sample
    }

    /// ``run(_:measure:environment:logs:timeout:)``, also returning what the command printed.
    static func runReadingOutput(
        _ command: [String], measure: String, environment: [String: String] = [:], logs: String,
        timeout: Double = 900
    ) throws -> (sample: Sample, output: String) {
        let report = logs + "/measure-\(UUID().uuidString.prefix(8)).txt"
        defer { unlink(report) }
        let child = try ChildProcess(executable: measure, arguments: [report] + command, environment: environment, directory: logs)
        let exit = child.wait(timeout: timeout)
        guard exit.code == 0 else {
            throw BenchError.mismatch(
                "\(command.prefix(3).joined(separator: " ")) … exited with \(exit.code.map(String.init) ?? "signal \(exit.signal ?? 0)"): \(child.standardError.suffix(300))"
            )
        }
        let fields = ((try? String(contentsOfFile: report, encoding: .utf8)) ?? "").split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count == 3, let wall = Double(fields[0]), let cpu = Double(fields[1]), let rss = Int64(fields[2]) else {
            throw BenchError.setup("bench/measure wrote no report for \(command[0])")
        }
        let output = child.standardOutput
        // Kept on failure for reading; removed when the run went well.
        unlink(child.stdoutPath)
        unlink(child.stderrPath)
        return (Sample(wall: wall, cpu: cpu, rss: rss * 1024), output)
    }

    /// The median of each measure on its own.
    static func median(_ samples: [Sample]) -> Sample {
        func mid(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }
        return Sample(
            wall: mid(samples.map(\.wall)), cpu: mid(samples.map(\.cpu)), rss: Int64(mid(samples.map { Double($0.rss) })),
            extra: mid(samples.map(\.extra)))
    }
}
