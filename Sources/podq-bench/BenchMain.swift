import Foundation
import PodqCommands
import PodqCore
import PodqHTTP
import PodqSession
import PodqTestSupport

/// `podq-bench`: measurements that are not tests (no timing is asserted in the test suite).
///
/// - `cancel [runs]`: how long `cancel()` takes to stop a running 1 GiB download, and whether the
///   server saw the connection end.
/// - `feed`: `podq parse` of 5,000- and 18,000-item feeds.
/// - `frame`: rendering a TUI frame of 1,000 rows; `tui-cpu`: the TUI's idle CPU, and its CPU with 50
///   downloads running against `podq download` on the same queue; `library [--episodes N] [--podcasts N]
///   [--queued N]`: the TUI on a big library in a pseudo-terminal, keys timed from typing to frame.
/// - `compare [--quick] [--out DIR] [--write FILE]`: podq against curl, wget and aria2c from nginx, and
///   against podcastparser and feedparser (``CompareBench``); `make bench` writes docs/PERFORMANCE.md
///   with it, `make bench-quick` checks in CI that every tool produced identical files.
/// - `digest [--write FILE]`: what each hash costs a GiB (``DigestBench``).
/// - `fresh-build [--write FILE]`: `git clone` to a built `podq` (``FreshBuildBench``), the time each
///   part of a first build takes.
/// - `docs [--write]`: the docs' generated sections (``GeneratedDocs``): lists the stale ones, or
///   (`--write`, `make docs`) rewrites them from the code.
/// - `size [BINARY] [--write FILE]`: what the installed binary is made of (``SizeBench``).
/// - `sync [--feeds N,N…] [--write FILE]`: a first sync adopting N subscriptions, and `--full` after it (``SyncBench``).
/// - `grep [--episodes N] [--transcripts N] [--words N]`: `podq grep` on a library of transcripts (``GrepBench``).
/// - `raw-read URL FILE [BYTES] [MESSAGES]`: an experiment (``RawNIORead``): one download over a bare NIO
///   channel with a chosen receive buffer.
@main
enum BenchMain {
    static func main() async throws {
        let args = Array(CommandLine.arguments.dropFirst())
        switch args.first {
        case "cancel": try await cancelLatency(runs: Int(args.dropFirst().first ?? "") ?? 5)
        case "feed": try feedParsing()
        case "frame": TUIBench.frame()
        case "tui-cpu": try await TUIBench.cpu()
        case "library": try await LibraryBench.run(Array(args.dropFirst()))
        case "compare": try await compare(Array(args.dropFirst()))
        case "raw-read": try await RawNIORead.run(Array(args.dropFirst()))
        case "fresh-build": try FreshBuildBench.run(Array(args.dropFirst()))
        case "digest": try DigestBench.run(Array(args.dropFirst()))
        case "size": try SizeBench.run(Array(args.dropFirst()))
        case "sync": try await SyncBench.run(Array(args.dropFirst()))
        case "grep": try GrepBench.run(Array(args.dropFirst()))
        case "docs": try docs(write: args.contains("--write"))
        default:
            try await cancelLatency(runs: 5)
            try feedParsing()
            TUIBench.frame()
            try await TUIBench.cpu()
        }
    }

    /// Checks (or rewrites) the generated sections of the docs, from the current folder (the repository).
    static func docs(write: Bool) throws {
        var stale: [String] = []
        let performance = try String(contentsOf: URL(fileURLWithPath: "docs/PERFORMANCE.md"), encoding: .utf8)
        for file in GeneratedDocs.files {
            let url = URL(fileURLWithPath: file)
            let text = try String(contentsOf: url, encoding: .utf8)
            let fresh = try GeneratedDocs.render(text, file: file, performance: performance)
            guard fresh != text else { continue }
            stale.append(file)
            if write { try fresh.write(to: url, atomically: true, encoding: .utf8) }
        }
        print(stale.isEmpty ? "docs: every generated section is current" : "docs: \(write ? "rewrote" : "stale:") \(stale.joined(separator: ", "))")
        if !stale.isEmpty && !write { exit(1) }
    }

    static func compare(_ options: [String]) async throws {
        func value(_ name: String) -> String? {
            options.firstIndex(of: name).flatMap { options.indices.contains($0 + 1) ? options[$0 + 1] : nil }
        }
        let repo = FileManager.default.currentDirectoryPath
        do {
            var bench = try CompareBench(plan: options.contains("--quick") ? .quick : .full, repo: repo, out: value("--out"))
            try await bench.run()
            if let path = value("--write") {
                try bench.report.write(to: path)
                print("wrote \(path)")
            }
            print("compare: every tool produced files identical to the source")
        } catch let error as BenchError {
            FileHandle.standardError.write(Data("podq-bench: \(error)\n".utf8))
            Foundation.exit(1)
        }
    }

    /// `podq parse` of generated feeds: 5,000 items (~12 MB) and ~50 MB; median of 5 runs.
    static func feedParsing() throws {
        let dir = TemporaryDirectory("podq-bench")
        defer { dir.remove() }
        for (items, label) in [(5_000, "5,000 items"), (18_000, "18,000 items")] {
            let path = dir.file("feed-\(items).xml")
            try generateFeed(items: items, to: path)
            let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0
            var runs: [(Double, ChildProcess.Exit)] = []
            for _ in 0..<5 {
                let started = Date()
                let child = try ChildProcess(executable: ChildProcess.podqExecutable, arguments: ["parse", "--json", path], directory: dir.path)
                let exit = child.wait(timeout: 120)
                runs.append((Date().timeIntervalSince(started), exit))
            }
            runs.sort { $0.0 < $1.0 }
            let (seconds, exit) = runs[2]
            print(
                String(
                    format: "feed: %@ (%.1f MB): median %.3f s, CPU %.2f s, peak RSS %.1f MB, exit %d",
                    label, Double(size) / 1e6, seconds, exit.cpuSeconds, Double(exit.maxRSS) / 1e6, exit.code ?? -1))
        }
    }

    /// An RSS feed with iTunes tags and ~2.4 KB of notes per item, as real back-catalogues have.
    static func generateFeed(items: Int, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let out = FileHandle(forWritingAtPath: path) else { return }
        defer { try? out.close() }
        out.write(
            Data(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:content="http://purl.org/rss/1.0/modules/content/">
                <channel><title>Bench Cast</title><link>https://bench.example/</link><description>Generated.</description>

                """.utf8))
        let notes = String(repeating: "Show notes with <b>markup</b> &amp; links https://bench.example/x. ", count: 34)
        for i in 0..<items {
            out.write(
                Data(
                    """
                    <item><title>Episode \(i): a title of ordinary length</title><guid isPermaLink="false">bench-\(i)</guid>
                    <link>https://bench.example/ep/\(i)</link><pubDate>Sat, 21 Nov 2026 10:00:00 +0000</pubDate>
                    <itunes:duration>01:02:03</itunes:duration><itunes:episode>\(i)</itunes:episode>
                    <description><![CDATA[\(notes)]]></description>
                    <enclosure url="https://cdn.bench.example/ep\(i).mp3" type="audio/mpeg" length="\(40_000_000 + i)"/></item>

                    """.utf8))
        }
        out.write(Data("</channel></rss>\n".utf8))
    }

    static func cancelLatency(runs: Int) async throws {
        let server = try await TestServer.start()
        let dir = TemporaryDirectory("podq-bench")
        let transport = AsyncHTTPTransport()
        defer { dir.remove() }
        var worst = 0.0
        for run in 1...runs {
            server.log.reset()
            let url = server.dataURL(size: 1 << 30, seed: UInt64(run), name: "c\(run).bin", ["rate": "100000000"])
            let op = DownloadOperation(id: run, request: DownloadRequest(url: url, destination: dir.file("c\(run).bin"), title: "c"), transport: transport)
            let running = Task { await op.start() }
            while op.downloadedLength < 20_000_000 { try await Task.sleep(for: .milliseconds(5)) }
            let t0 = DispatchTime.now().uptimeNanoseconds
            op.cancel()
            let state = await running.value
            let stopped = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
            // Wait for the server to notice the closed connection.
            while server.log.outcomes.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
            let serverSaw = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
            let partialGone = !FileManager.default.fileExists(atPath: dir.file("c\(run).bin.part"))
            worst = max(worst, max(stopped, serverSaw))
            print(
                String(
                    format: "cancel #%d: operation stopped in %.1f ms, server saw the close in %.1f ms, state %@, partial deleted: %@",
                    run, stopped, serverSaw, state.name, partialGone ? "yes" : "no"))
        }
        print(String(format: "cancel: worst %.1f ms over %d runs (target 200 ms)", worst, runs))
        await transport.shutdown()
        await server.stop()
        if worst > 200 { Foundation.exit(1) }
    }
}
