import Dispatch
import Foundation
import PodqCore
import PodqSession
import PodqTestSupport
import PodqUI

/// The TUI's costs: a frame of 1,000 rows, the idle CPU, and the CPU with 50 downloads running
/// against the same queue run headless.
enum TUIBench {
    /// Renders frames of a 1,000-row queue (view-model snapshot + layout into a 200 × 50 grid), as the
    /// loop does on each frame; prints the median and the 99th percentile.
    static func frame(rows count: Int = 1_000) {
        let model = DownloadsViewModel()
        let states: [StoredState] = [.downloading, .queued, .paused, .failed, .completed, .cancelled]
        let records: [DownloadRecord] = (1...count).map { i in
            var r = DownloadRecord(
                id: Int64(i), position: Int64(i), url: "http://h/\(i).mp3", title: "Podcast \(i % 17) — Episode \(i) ポッドキャスト 🎧",
                destination: "/d/\(i).mp3")
            r.state = states[i % states.count]
            r.bytesReceived = Int64(i) * 10_000
            r.bytesExpected = i % 5 == 0 ? nil : 50_000_000
            r.lastError = r.state == .failed ? "503: busy" : nil
            return r
        }
        model.update(records: records, estimates: [5: 40_000_000])
        var state = TUIState()
        state.selectedID[.downloads] = 500
        var times: [Double] = []
        var snapshotTimes: [Double] = []
        for tick in 0..<2_000 {
            let t0 = DispatchTime.now().uptimeNanoseconds
            let snapshot = TUISnapshot(downloads: model.snapshot())
            let tm = DispatchTime.now().uptimeNanoseconds
            let grid = TUIRenderer(tick: tick).render(&state, snapshot, width: 200, height: 50)
            let t1 = DispatchTime.now().uptimeNanoseconds
            precondition(grid.height == 50)
            times.append(Double(t1 - t0) / 1e6)
            snapshotTimes.append(Double(tm - t0) / 1e6)
        }
        times.sort()
        snapshotTimes.sort()
        print(
            String(
                format: "frame: %d rows, 200x50: median %.3f ms (of which the view-model snapshot %.3f ms), p99 %.3f ms (target < 2 ms)",
                count, times[times.count / 2], snapshotTimes[times.count / 2], times[times.count * 99 / 100]))
    }

    /// Idle CPU of the TUI on an empty queue, and its CPU with 50 downloads in flight against
    /// `podq download --jobs 50` on the same queue (each download rate-limited, so both take as long).
    /// What ``cpu(downloads:size:rate:idleSeconds:)`` measured.
    struct CPUResult {
        var idlePercent: Double
        var headless: Double
        var tui: Double
        var ratio: Double { tui / max(0.001, headless) }
    }

    @discardableResult
    static func cpu(downloads: Int = 50, size: Int64 = 4_000_000, rate: Int = 400_000, idleSeconds: Int = 10) async throws -> CPUResult? {
        guard Tmux.isAvailable else {
            print("tui-cpu: not measured: tmux is not installed (apt-get install tmux)")
            return nil
        }
        let server = try await TestServer.start()
        let dir = TemporaryDirectory("podq-bench-tui")
        defer { dir.remove() }

        let idleHome = dir.file("idle")
        let idle = try Tmux(command: "\(ChildProcess.podqExecutable) tui --home '\(idleHome)'", width: 160, height: 60)
        try await Task.sleep(for: .seconds(2))
        var idlePercent = 0.0
        if let pid = processID(home: idleHome) {
            let before = cpuSeconds(pid)
            try await Task.sleep(for: .seconds(idleSeconds))
            let used = cpuSeconds(pid) - before
            idlePercent = used * 100 / Double(idleSeconds)
            print(String(format: "tui-idle: %.3f CPU s in %d s (%.2f%% of a core; target < 1%%)", used, idleSeconds, idlePercent))
        }
        // Quit it first: `kill-server` alone left the idle TUIs of earlier runs behind.
        idle.send("q")
        _ = await idle.waitFor { $0.contains("[exit") }
        idle.stop()

        func queue(_ home: String) async throws {
            let urls = (1...downloads).map { server.dataURL(size: size, seed: UInt64($0), name: "e\($0).mp3", ["rate": String(rate)]).absoluteString }
            let cli = PodqInvocation(home: home, directory: dir.path)
            _ = try await cli.run(["queue", "add", "--download-dir", home + "/out"] + urls)
        }

        let headlessHome = dir.file("headless")
        try await queue(headlessHome)
        let t0 = Date()
        let child = try ChildProcess(
            executable: ChildProcess.podqExecutable, arguments: ["download", "--home", headlessHome, "--jobs", "\(downloads)", "--per-host", "\(downloads)"],
            directory: dir.path)
        let exit = await Task.detached { child.wait(timeout: 600) }.value
        let headlessWall = Date().timeIntervalSince(t0)

        let tuiHome = dir.file("tui")
        try await queue(tuiHome)
        let t1 = Date()
        let tui = try Tmux(
            command: "\(ChildProcess.podqExecutable) tui --home '\(tuiHome)' --jobs \(downloads) --per-host \(downloads)", width: 160, height: 60)
        var pid: pid_t?
        while pid == nil && Date().timeIntervalSince(t1) < 10 {
            pid = processID(home: tuiHome)
            try await Task.sleep(for: .milliseconds(20))
        }
        var used = 0.0
        let done = await tui.waitFor(timeout: 600) { $0.contains("\(downloads) done") }
        let tuiWall = Date().timeIntervalSince(t1)
        if let pid { used = cpuSeconds(pid) }
        tui.send("q")
        _ = await tui.waitFor { $0.contains("[exit") }
        tui.stop()
        await server.stop()
        print(
            String(
                format:
                    "tui-cpu: %d downloads of %.1f MB at %d B/s each: headless %.2f CPU s (%.1f s, exit %d), TUI %.2f CPU s (%.1f s%@): %.2fx (target <= 1.2x)",
                downloads, Double(size) / 1e6, rate, exit.cpuSeconds, headlessWall, exit.code ?? -1, used, tuiWall,
                done.ok ? "" : ", DID NOT FINISH", used / max(0.001, exit.cpuSeconds)))
        guard done.ok, exit.code == 0 else { throw BenchError.mismatch("tui-cpu: the downloads did not all finish") }
        return CPUResult(idlePercent: idlePercent, headless: exit.cpuSeconds, tui: used)
    }

    /// user + system CPU seconds of a process, from /proc.
    static func cpuSeconds(_ pid: pid_t) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, utime 14, stime 15 (1-based in proc(5)).
        guard fields.count > 13, let utime = Double(fields[11]), let stime = Double(fields[12]) else { return 0 }
        return (utime + stime) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The pid of the `podq` process whose arguments include `home`.
    static func processID(home: String) -> pid_t? {
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
            let args = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if args.first?.hasSuffix("/podq") == true, args.contains(home) { return pid }
        }
        return nil
    }
}
