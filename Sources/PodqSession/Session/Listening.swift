import Dispatch
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import Synchronization

/// Listening to an episode in the terminal (`podq play`, `o` in the TUI). With mpv, podq starts it at
/// the stored position and follows the position through mpv's IPC, a socket pair of which mpv gets one
/// end (``MPVConnection``, `--input-ipc-client`): when mpv quits, the position is stored and queued for
/// the sync server as a play; at the end the episode is marked played. When podq goes (a `kill -9`, a
/// crash), the connection closes and mpv quits too. Any other player is only started (mark it played with `m` or `podq mark-played`).
package struct Listening: Sendable {
    /// What is known of the episode being played (nil for a URL queued by hand: nothing is recorded).
    package struct Episode: Sendable, Equatable {
        package var id: Int64
        package var position: Int?
        package var played: Bool
        package var duration: Int?
    }

    /// What mpv said before it quit.
    package struct Heard: Sendable, Equatable {
        package var started: Int
        package var position: Double?
        package var duration: Double?
        package var reachedEnd = false
    }

    package let store: QueueStore
    package let home: String

    package init(store: QueueStore, home: String) {
        self.store = store
        self.home = home
    }

    /// The longest an episode can last, in seconds (ten years): past it a player's number is not a time.
    package static let longest = 315_576_000

    /// The episode of download `id`, when it has one.
    package func episode(ofDownload id: Int64) async -> Episode? {
        guard let row = try? await store.queue.download(id: id), let episodeId = row.episodeId,
            let found = try? await store.library.episode(id: episodeId)
        else { return nil }
        return Episode(id: episodeId, position: found.episode.position, played: found.episode.playedAt != nil, duration: found.episode.duration)
    }

    /// Whether podq can tell `argv`'s player where to start: mpv, ffplay and vlc.
    package static func canStart(_ argv: [String]) -> Bool {
        ["mpv", "ffplay", "vlc", "cvlc"].contains(argv.first.map { LexicalPath.lastComponent(of: $0) } ?? "")
    }

    /// `argv` told to start `at` seconds in: ffplay's `-ss`, vlc's `--start-time`; as it is for others.
    static func starting(_ argv: [String], at: Int?) -> [String] {
        guard let at, let first = argv.first else { return argv }
        switch LexicalPath.lastComponent(of: first) {
        case "ffplay": return [first, "-ss", "\(at)"] + argv.dropFirst()
        case "vlc", "cvlc": return [first, "--start-time=\(at)"] + argv.dropFirst()
        default: return argv
        }
    }

    /// True when `argv` runs mpv (its name, whatever the folder).
    package static func isMPV(_ argv: [String]) -> Bool {
        (argv.first.map { LexicalPath.lastComponent(of: $0) } ?? "") == "mpv"
    }

    /// mpv's log of this run (`--log-file`), read for its last error when it fails: on a machine without
    /// sound, mpv's reason went to the terminal the TUI then covered, and the TUI said only "status 2".
    package var logFile: String { LexicalPath.join(home, "mpv-\(getpid()).log") }
    /// The episode's chapters for mpv while it plays (FFmpeg's metadata text), removed after.
    package var chaptersFile: String { LexicalPath.join(home, "mpv-\(getpid()).chapters") }

    /// `argv` with mpv's log and, for an episode, its IPC connection and start position added (mpv
    /// only), and the connection.
    /// - Parameter at: where to start (seconds; `podq play --at`, a hit of `podq grep`), over the stored position.
    /// - Parameter chapters: given to mpv as its chapter list (`--chapters-file`: its chapter keys work).
    package func prepared(_ argv: [String], episode: Episode?, at: Int? = nil, chapters: [Chapter] = []) -> (
        argv: [String], connection: MPVConnection?, started: Int
    ) {
        guard Self.isMPV(argv) else { return (Self.starting(argv, at: at), nil, at ?? 0) }
        MPVConnection.removeLeftovers(in: home)
        unlink(logFile)
        unlink(chaptersFile)
        var start = at.map { ["--start=\($0)"] } ?? []
        if !chapters.isEmpty, case .success(let fd) = OwnFile.open(chaptersFile, O_WRONLY | O_CREAT | O_TRUNC) {
            let text = Array(SidecarFiles.ffmetadata(chapters).utf8)
            let written = text.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            close(fd)
            if written == text.count { start.append("--chapters-file=\(chaptersFile)") }
        }
        guard let episode else { return ([argv[0], "--log-file=\(logFile)"] + start + argv.dropFirst(), nil, at ?? 0) }
        guard let connection = MPVConnection() else {
            return ([argv[0], "--log-file=\(logFile)"] + start + argv.dropFirst(), nil, at ?? 0)
        }
        var options = ["--log-file=\(logFile)", connection.option]
        var started = 0
        if let at {
            options += start
            started = at
        } else if let position = episode.position, position > 0, !episode.played, episode.duration.map({ position < $0 - 15 }) ?? true {
            options.append("--start=\(position)")
            started = position
        }
        return ([argv[0]] + options + argv.dropFirst(), connection, started)
    }

    /// What was heard of an episode, to record (``record(_:)``).
    package struct Listened: Sendable, Equatable {
        package var heard: Heard
        package var episode: Episode
    }

    /// How a play ended: the player's exit, and either what was heard, to record, or the line that says
    /// why nothing is (nil: nothing to say).
    package struct Played: Sendable {
        package var exit: Player.Exit
        package var listened: Listened? = nil
        package var line: String? = nil
    }

    /// Runs the player (`run` does, in the foreground) while a thread follows mpv's position (storing it
    /// every ten seconds and at a seek). Returns how the player ended and what was heard, which the
    /// caller records (``record(_:)``) off the thread that waited for the player: when it quit, or a
    /// signal stopped podq and so the player (``Player/run(_:handing:)``); not when the player failed.
    /// `run` hands the descriptors it is given to the player (mpv's end of the connection). However it
    /// ends, mpv's log and chapters are removed.
    package func play(
        _ argv: [String], episode: Episode?, at: Int? = nil, chapters: [Chapter] = [], run: ([String], [Int32]) throws -> Player.Exit
    ) throws -> Played {
        let (command, connection, started) = prepared(argv, episode: episode, at: at, chapters: chapters)
        let store = self.store
        let follower = connection.map { connection in
            MPVFollower(connection: connection.podqEnd, started: started) { position in
                if let episode { try? store.library.savePosition(episode: episode.id, position: position) }
            }
        }
        follower?.start()
        let log = Self.isMPV(argv) ? logFile : nil
        defer {
            if let log {
                unlink(log)
                unlink(chaptersFile)
            }
        }
        var exit: Player.Exit
        do {
            exit = try run(command, connection.map { [$0.playerEnd] } ?? [])
        } catch {
            follower?.stop()
            throw error
        }
        if exit.status != 0, exit.signal == nil, let log { exit.reason = Self.lastError(inLog: log) }
        if Self.isMPV(argv), episode != nil, connection == nil {
            return Played(exit: exit, line: "podq could not make a connection to mpv (no socket pair: too many open files?): the position was not stored")
        }
        let heard = follower?.finish()
        // A player that failed (mpv with no sound device it can open runs through the file at once and
        // says it reached the end) heard nothing worth keeping: its failure is what is said, and the
        // episode is not marked played here and on every synced device.
        if exit.status != 0, exit.signal == nil { return Played(exit: exit) }
        guard let episode, let heard, let follower else { return Played(exit: exit) }
        guard follower.connected else {
            // Said, never a silent loss: mpv played on, and nothing followed it.
            return Played(exit: exit, line: "podq could not follow mpv's position (mpv never answered on its IPC connection): the position was not stored")
        }
        return Played(exit: exit, listened: Listened(heard: heard, episode: episode))
    }

    /// Stores what was heard and queues it for the sync server; the line says it (nil: nothing was
    /// heard to keep).
    package func record(_ listened: Listened) async throws -> String? {
        let (heard, episode) = (listened.heard, listened.episode)
        let total = heard.duration.map { Int.clamped($0, in: 0...Listening.longest) } ?? episode.duration
        let position = heard.position.map { Int.clamped($0, in: 0...Listening.longest) } ?? 0
        let atTheEnd = heard.reachedEnd || (total.map { $0 > 0 && position >= $0 - max(15, $0 / 50) } ?? false)
        guard atTheEnd || position > 0 else { return nil }
        try await store.sync.recordListening(episode: episode.id, started: heard.started, position: position, total: total, reachedEnd: atTheEnd)
        return atTheEnd
            ? "heard to the end: marked played"
            : "stopped at \(Self.clock(position))" + (total.map { " of \(Self.clock($0))" } ?? "") + "; it starts there next time"
    }

    /// mpv's last error in its log (`[   0.22][e][cplayer] Could not open/initialize audio device -> no
    /// sound.`): the player core's own, else the last error or fatal line of any part; cleaned, and cut to
    /// a line's length. Nil when there is none.
    package static func lastError(inLog path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        var last: String?
        var core: String?
        for line in String(decoding: data.suffix(256 << 10), as: UTF8.self).split(separator: "\n") {
            // `[time][level][part] text`
            let fields = line.split(separator: "]", maxSplits: 3, omittingEmptySubsequences: false)
            guard fields.count == 4, fields[1] == "[e" || fields[1] == "[f" else { continue }
            let text = SafeText.clean(fields[3].trimmingSpaces)
            guard !text.isEmpty else { continue }
            last = text
            if fields[2] == "[cplayer" { core = text }
        }
        return (core ?? last).map { String($0.prefix(300)) }
    }

    package static func clock(_ seconds: Int) -> String {
        seconds >= 3600
            ? String(printf: "%ld:%02ld:%02ld", seconds / 3600, (seconds % 3600) / 60, seconds % 60) : String(printf: "%ld:%02ld", seconds / 60, seconds % 60)
    }
}

/// Follows mpv's playback through its JSON IPC connection (podq's end of ``MPVConnection``) on a
/// thread of its own: it asks mpv to report `time-pos` and `duration` as they change (mpv reads the
/// asks once it started), and reads until mpv's end closes (it quit); then it closes its own end. An
/// `end-file` with reason `eof` means the end was reached. While it plays, the place is handed to `onPlace` every ``placeStep`` seconds of audio and at a seek.
package final class MPVFollower: Sendable {
    /// How far the position moves (played on or sought) before it is handed on again.
    package static let placeStep = 10
    private let connection: Int32
    private let onPlace: @Sendable (Int) -> Void
    /// The last whole second handed to `onPlace`.
    private let handedOn: Mutex<Int>
    private let state: Mutex<Listening.Heard>
    private let stopped = Mutex(false)
    private let done = DispatchSemaphore(value: 0)
    private let descriptor = Mutex<Int32>(-1)
    private let madeConnection = Mutex(false)

    /// True once mpv answered on the connection.
    package var connected: Bool { madeConnection.withLock { $0 } }

    /// Takes `connection`: it is closed when the reading ends.
    package init(connection: Int32, started: Int, onPlace: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.connection = connection
        self.onPlace = onPlace
        self.handedOn = Mutex(started)
        self.state = Mutex(Listening.Heard(started: started, position: started > 0 ? Double(started) : nil))
    }

    package func start() {
        DetachedThread.start { [self] in
            follow()
            done.signal()
        }
    }

    /// Waits (2 s at most) for the reading to end after the player quit; returns what was heard.
    package func finish() -> Listening.Heard {
        if done.wait(timeout: .now() + 2) == .timedOut { stop() }
        return state.withLock { $0 }
    }

    package func stop() {
        stopped.withLock { $0 = true }
        // Under the lock the reader closes it under: never a number closed meanwhile and given to
        // another file or connection of this process.
        descriptor.withLock { fd in
            if fd >= 0 { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    private func follow() {
        let fd = connection
        descriptor.withLock { $0 = fd }
        defer {
            descriptor.withLock { $0 = -1 }
            close(fd)
        }
        // Stopped before it began (the player could not be started): nothing to read.
        guard !stopped.withLock({ $0 }) else { return }
        let ask = #"{"command":["observe_property",1,"time-pos"]}"# + "\n" + #"{"command":["observe_property",2,"duration"]}"# + "\n"
        UnixSocket.send(fd, ask)
        var line: [UInt8] = []
        // A line longer than any mpv sends for the two properties is skipped to its end, never kept.
        var skipping = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            madeConnection.withLock { $0 = true }
            // Each byte looked at once: a player's endless line costs its length, not its square.
            var start = 0
            while start < n {
                let newline = buffer[start..<n].firstIndex(of: UInt8(ascii: "\n"))
                let end = newline ?? n
                if !skipping {
                    line += buffer[start..<end]
                    if line.count > Self.longestLine {
                        line.removeAll()
                        skipping = true
                    }
                }
                guard let newline else { break }
                if !skipping { handle(line) }
                line.removeAll(keepingCapacity: true)
                skipping = false
                start = newline + 1
            }
        }
    }

    /// The longest line of mpv's that is read (its property changes are under 200 bytes).
    static let longestLine = 64 << 10

    /// One line of mpv's: a property change, or the end of the file.
    private func handle(_ line: [UInt8]) {
        guard let object = JSONTree.any(line) as? [String: Any] else { return }
        let event = object["event"] as? String
        // A number no episode can be (NaN, negative, 1e300, mpv's duration of a broken stream) is
        // not a position: the last true one stays.
        if event == "property-change", let name = object["name"] as? String, let value = object["data"] as? Double,
            value.isFinite, value >= 0, value <= Double(Listening.longest)
        {
            state.withLock { heard in
                if name == "time-pos" { heard.position = value }
                if name == "duration" { heard.duration = value }
            }
            if name == "time-pos" {
                let second = Int(value)
                let moved = handedOn.withLock { last in
                    guard abs(second - last) >= Self.placeStep else { return false }
                    last = second
                    return true
                }
                if moved { onPlace(second) }
            }
        } else if event == "end-file", (object["reason"] as? String) == "eof" {
            state.withLock { $0.reachedEnd = true }
        }
    }

}
