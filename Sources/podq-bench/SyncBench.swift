import Foundation
import PodqTestSupport

/// `podq-bench sync [--feeds N,N…] [--write FILE]` (issue 42): what a first sync costs when the account
/// lists N subscriptions (each adopted: fetched, parsed, stored, as `podq add`), and what `podq sync
/// --full` costs after it with nothing new, in podq's CPU seconds (user + system) and wall time, the
/// server a mygpo-shaped one on loopback (MygpoTestServer), the feeds small (3 episodes) from another.
enum SyncBench {
    static func run(_ options: [String]) async throws {
        let sizes =
            options.firstIndex(of: "--feeds").flatMap { options.indices.contains($0 + 1) ? options[$0 + 1] : nil }?
            .split(separator: ",").compactMap { Int($0) } ?? [1000]
        var rows: [String] = []
        for count in sizes {
            let (adopt, full) = try await measure(feeds: count)
            rows.append(
                "| \(count) | \(String(format: "%.1f", adopt.cpuSeconds)) s CPU, \(String(format: "%.1f", adopt.wall)) s | "
                    + "\(String(format: "%.2f", full.cpuSeconds)) s CPU, \(String(format: "%.2f", full.wall)) s |")
            print(rows.last!)
        }
        let text =
            "Measured by `podq-bench sync` on \(ISO8601DateFormatter().string(from: Date()).prefix(10)), "
            + "\(ProcessInfo.processInfo.activeProcessorCount) cores, the \(ChildProcess.podqExecutable.contains("/release/") ? "release" : "debug") build: "
            + "a first `podq sync` adopting every subscription the account lists (each feed fetched, parsed and stored), then "
            + "`podq sync --full` with nothing new; podq's CPU (user + system) and wall time.\n\n"
            + "| subscriptions | first sync (adopting them) | `--full`, nothing new |\n|---|---|---|\n" + rows.joined(separator: "\n") + "\n"
        print(text)
        if let index = options.firstIndex(of: "--write"), options.indices.contains(index + 1) {
            try BenchReport.replace(between: "<!-- make bench: sync start -->", and: "<!-- make bench: sync end -->", in: options[index + 1], with: text)
            print("wrote \(options[index + 1])")
        }
    }

    struct Cost {
        var cpuSeconds: Double
        var wall: Double
    }

    static func measure(feeds count: Int) async throws -> (Cost, Cost) {
        let dir = TemporaryDirectory("podq-bench-sync")
        defer { dir.remove() }
        let feeds = try await TestServer.start()
        let mygpo = try await MygpoTestServer.start(user: "bench", password: "bench-password")
        var urls: [String] = []
        for i in 0..<count {
            let items = (1...3).map { n in
                "<item><title>E\(n)</title><guid>f\(i)-\(n)</guid><pubDate>\(n) Nov 2026 10:00:00 GMT</pubDate>"
                    + "<enclosure url=\"https://cdn.example.com/f\(i)/\(n).mp3\" type=\"audio/mpeg\" length=\"1000\"/></item>"
            }.joined()
            feeds.serve(Array("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Feed \(i)</title>\(items)</channel></rss>".utf8), as: "f\(i).xml")
            urls.append(feeds.url("/static/f\(i).xml").absoluteString)
        }
        mygpo.phoneSubscribe(device: "phone", urls)
        try "bench-password".write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        let podq = PodqInvocation(home: dir.file("home"), directory: dir.path)
        let login = try await podq.run(["sync", "login", mygpo.url.absoluteString, "--user", "bench", "--password-command", "cat '\(dir.file("pw"))'"])
        guard login.exit.code == 0 else { throw BenchError("login failed: \(login.out) \(login.err)") }
        func timed(_ args: [String]) async throws -> Cost {
            let start = Date()
            let (exit, out, err) = try await podq.run(args, timeout: 3600)
            guard exit.code == 0 else { throw BenchError("\(args) failed: \(out.suffix(300)) \(err.suffix(300))") }
            return Cost(cpuSeconds: exit.cpuSeconds, wall: Date().timeIntervalSince(start))
        }
        let adopt = try await timed(["sync"])
        let full = try await timed(["sync", "--full"])
        await mygpo.stop()
        await feeds.stop()
        return (adopt, full)
    }

    struct BenchError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
