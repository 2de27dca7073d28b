import Foundation
import PodqCore
import PodqSQLite
import PodqSession
import PodqTestSupport

/// `podq-bench library`'s second part (issue 30): the actions that read or change the whole library,
/// on the home the first part built and used.
///
/// - `podq episodes --json` and `podq episodes --search WORDS`: time and peak RSS (the child's
///   `ru_maxrss`).
/// - `podq queue remove` of 100 rows: time.
/// - `C` in the TUI on 1,000 completed rows, then at once `2`, `G`, Enter (queue the oldest episode):
///   how long until the rows are gone, and how long until the new download is on the queue (it must
///   not wait for the bulk action). Both read from the store every 5 ms, from the moment `C` was typed.
/// - The TUI's RSS with 50 downloads running, and its peak while every feed refreshes (the first
///   part's numbers, kept as rows of their own).
enum LibraryActionsBench {
    struct Command {
        var seconds: Double
        var peakMB: Double
        var outputBytes: Int64
        var exit: Int32
    }

    /// Runs `podq arguments…` on `home` to its end, its output to a file.
    static func podq(_ arguments: [String], home: String, dir: TemporaryDirectory) -> Command {
        let start = Date()
        let child = try? ChildProcess(
            executable: ChildProcess.podqExecutable, arguments: arguments + ["--home", home],
            environment: ["LANG": "C.UTF-8"], directory: dir.path)
        guard let child else { return Command(seconds: -1, peakMB: -1, outputBytes: 0, exit: -1) }
        let exit = child.wait(timeout: 300)
        let size = (try? FileManager.default.attributesOfItem(atPath: child.stdoutPath)[.size] as? Int64) ?? 0
        return Command(
            seconds: Date().timeIntervalSince(start), peakMB: Double(exit.maxRSS) / 1e6, outputBytes: size,
            exit: exit.code ?? -1)
    }

    static func run(home: String, dir: TemporaryDirectory) async throws {
        let paths = PodqPaths(home: home, downloadDir: nil)
        let json = podq(["episodes", "--json"], home: home, dir: dir)
        let search = podq(["episodes", "--search", "episode 12"], home: home, dir: dir)
        print(
            String(
                format: "library: podq episodes --json %.2f s, peak RSS %.1f MB (%.1f MB of JSON; goal ≤ 100 MB); --search %.2f s, peak RSS %.1f MB",
                json.seconds, json.peakMB, Double(json.outputBytes) / 1e6, search.seconds, search.peakMB))

        // 1,000 rows, then 100 of them removed by the command line.
        let database = try DatabaseQueue(path: paths.database)
        try fill(database, to: 1_000, home: home, paths: paths)
        let hundred = try await database.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM download ORDER BY id LIMIT 100") }
        let remove = podq(["queue", "remove"] + hundred.map(String.init), home: home, dir: dir)
        print(String(format: "library: podq queue remove of 100 rows %.2f s (exit %d)", remove.seconds, remove.exit))

        // 1,000 completed rows, and `C` in the TUI.
        try fill(database, to: 1_000, home: home, paths: paths)
        try await database.write { db in
            try db.execute(sql: "UPDATE download SET state = 'completed', completedAt = strftime('%s', 'now'), bytesReceived = 2000000")
        }
        let terminal = try PseudoTerminal(width: 200, height: 50)
        defer { terminal.close() }
        let tui = try ChildProcess(
            executable: ChildProcess.podqExecutable, arguments: ["tui", "--home", home, "--jobs", "1"],
            environment: ["TERM": "xterm-256color", "LANG": "C.UTF-8"], directory: dir.path, terminal: terminal.device)
        try await Task.sleep(for: .seconds(4))  // the library read
        let typed = Date()
        terminal.send("C")
        try await Task.sleep(for: .milliseconds(30))
        terminal.send("2")
        try await Task.sleep(for: .milliseconds(30))
        terminal.send("G")
        try await Task.sleep(for: .milliseconds(30))
        terminal.send("\r")
        var cleared: Double?, queued: Double?
        while Date().timeIntervalSince(typed) < 180 && (cleared == nil || queued == nil) {
            let (completed, others) = try await database.read { db in
                (
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM download WHERE state = 'completed'") ?? 0,
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM download WHERE state != 'completed'") ?? 0
                )
            }
            if cleared == nil && completed == 0 { cleared = Date().timeIntervalSince(typed) }
            if queued == nil && others > 0 { queued = Date().timeIntervalSince(typed) }
            try await Task.sleep(for: .milliseconds(5))
        }
        terminal.send("q")
        _ = await Task.detached { tui.wait(timeout: 60) }.value
        print(
            String(
                format:
                    "library: C on 1,000 completed rows: gone after %.0f ms; an episode queued right after it (2, G, Enter typed 90 ms later) on the queue after %.0f ms",
                (cleared ?? -1) * 1000, (queued ?? -1) * 1000))
    }

    /// Queues episodes not queued yet until the queue has `count` rows.
    static func fill(_ database: DatabaseQueue, to count: Int, home: String, paths: PodqPaths) throws {
        let have = try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM download") ?? 0 }
        guard have < count else { return }
        let rows = try database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT episode.id, episode.url, episode.title, podcast.title FROM episode JOIN podcast ON podcast.id = episode.podcastId
                    WHERE episode.downloadId IS NULL ORDER BY episode.id LIMIT ?
                    """, arguments: [count - have])
        }
        let store = try QueueStore(path: paths.database)
        try store.queue.add(
            rows.map { row in
                let id: Int64 = row[0]
                return NewDownload(
                    url: row[1], title: row[2], podcast: row[3], destination: paths.downloadFolder + "/fill/\(id).mp3",
                    folder: paths.downloadFolder, episodeId: id, bytesExpected: 2_000_000)
            })
    }
}
