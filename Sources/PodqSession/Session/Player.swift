import CPodqSystem
import Dispatch
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import Synchronization

/// Why an episode could not be played, with what to do.
package enum PlayerError: Error, LocalizedError {
    case noPlayer(configFile: String)
    case notFound(command: String, configFile: String)
    case notCompleted(id: Int64, state: String)
    case fileMissing(path: String)
    case noSuchDownload(id: Int64)
    /// The player exited with `status`; `reason` is its last error line, when it said one (mpv's log).
    case failed(command: String, status: Int32, reason: String?)
    /// `--at` with a player podq cannot tell where to start.
    case cannotStartAt(command: String)
    /// `--chapter N` beyond the episode's chapters (`count` of them; 0: none beside the file).
    case noChapter(Int, count: Int)
    /// Playing an episode (a transcript's line) that has no completed download.
    case notDownloaded(episode: Int64)

    package var errorDescription: String? {
        switch self {
        case .noPlayer(let config):
            "No player found (looked for mpv, ffplay, vlc and xdg-open). Install one, or set `player = <command>` in \(config)."
        case .notFound(let command, let config):
            "The player '\(command)' is not installed or not on PATH; install it or change `player` in \(config)."
        case .notCompleted(let id, let state):
            "\(ItemKind.download.label(id)) is \(state); only a completed download can be played."
        case .fileMissing(let path):
            "The file \(path) is gone (moved or deleted); `podq queue` lists what is left."
        case .noSuchDownload(let id):
            "There is no download \(ItemKind.download.label(id)); `podq queue` lists them."
        case .failed(let command, let status, let reason?):
            "The player '\(command)' exited with status \(status): \(reason)"
                + (reason.contains("audio device") || reason.contains("no sound")
                    ? " (no sound device here: \(PodqDocs.cite("TROUBLESHOOTING.md")), 'Playing')" : "")
        case .failed(let command, let status, nil):
            "The player '\(command)' exited with status \(status)."
        case .noChapter(let n, 0):
            "There is no chapter \(n): no chapters are beside the file (they come with sidecars = true, from the feed's podcast:chapters)."
        case .noChapter(let n, let count):
            "There is no chapter \(n): the episode has \(count) (1 to \(count))."
        case .notDownloaded(let episode):
            "\(ItemKind.episode.label(episode)) is not downloaded: queue it (Enter in the Episodes view, or podq queue add \(ItemKind.episode.label(episode))), then play it from there."
        case .cannotStartAt(let command):
            "podq can start mpv, ffplay or vlc at a time, not '\(command)'; set `player = mpv` (or leave it unset with mpv installed) to use --at."
        }
    }
}

/// Runs the configured player (`player` in the config) on a file, in the foreground of the terminal.
package enum Player {
    /// Players tried, in order, when the config names none: each with the arguments that make it play
    /// one file and exit.
    package static let fallbacks: [[String]] = [["mpv"], ["ffplay", "-nodisp", "-autoexit"], ["vlc", "--play-and-exit"], ["xdg-open"]]

    /// The argument vector that plays `file`: the config's words, with `%f` replaced by the file or the
    /// file added at the end; without a config, the first fallback found on `PATH`.
    package static func command(
        for file: String, configured: String?, configFile: String,
        path: String = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    ) throws(PlayerError) -> [String] {
        let words: [String]
        if let configured {
            words = configured.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let first = words.first, locate(first, in: path) != nil else {
                throw .notFound(command: configured.split(separator: " ").first.map(String.init) ?? configured, configFile: configFile)
            }
        } else {
            guard let found = fallbacks.first(where: { locate($0[0], in: path) != nil }) else { throw .noPlayer(configFile: configFile) }
            words = found
        }
        return words.contains("%f") ? words.map { $0 == "%f" ? file : $0 } : words + [file]
    }

    /// The path of `command` (itself when it has a slash), nil when no executable file has that name.
    package static func locate(_ command: String, in path: String) -> String? {
        if command.contains("/") { return access(command, X_OK) == 0 ? command : nil }
        for folder in path.split(separator: ":") {
            let candidate = String(folder) + "/" + command
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// The completed download `id`'s file.
    package static func file(of id: Int64, in store: QueueStore) async throws -> String {
        guard let row = try await store.queue.download(id: id) else { throw PlayerError.noSuchDownload(id: id) }
        guard row.state == .completed else { throw PlayerError.notCompleted(id: id, state: row.state.rawValue) }
        guard FileManager.default.fileExists(atPath: row.destination) else { throw PlayerError.fileMissing(path: row.destination) }
        return row.destination
    }

    /// How the player ended: its exit status, and the signal that stopped podq meanwhile (nil: none).
    package struct Exit: Sendable, Equatable {
        package var status: Int32
        /// SIGTERM, SIGHUP (the terminal closed) or SIGINT sent to podq while the player ran: the player
        /// was asked to quit, and podq stops after recording what was heard.
        package var signal: Int32?
        /// The player's last error line, when it failed and said why (mpv's log: ``Listening``).
        package var reason: String?
    }

    /// Runs `argv` with the terminal, in its own process group made the terminal's foreground (so
    /// Ctrl-C stops the player, not podq), and waits for it. A SIGTERM, SIGHUP or SIGINT that reaches podq
    /// meanwhile is not its death: the player is asked to quit (SIGTERM; SIGKILL after 5 s), and the
    /// caller records where it stopped and cleans up before podq exits (issue 41).
    ///
    /// `handing` are descriptors podq opened close-on-exec for the player alone (mpv's end of its
    /// ``MPVConnection``): the player inherits them under the same numbers, no other child does, and
    /// they are closed in podq once it started (or could not be).
    package static func run(_ argv: [String], handing: [Int32] = []) throws(PlayerError) -> Exit {
        let terminal = isatty(STDIN_FILENO) == 1
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        var pid: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        // A descriptor duplicated onto itself loses close-on-exec in the child (Austin Group issue 411;
        // glibc 2.29 and later).
        for fd in handing { posix_spawn_file_actions_adddup2(&actions, fd, fd) }
        // Default signals (podq ignores SIGINT; the player must not), and a group of its own on a terminal.
        let rc = CleanSpawn.withAttributes(newProcessGroup: terminal) { posix_spawnp(&pid, argv[0], &actions, &$0, cArgs, environ) }
        posix_spawn_file_actions_destroy(&actions)
        for fd in handing { close(fd) }
        guard rc == 0 else { throw .notFound(command: argv[0], configFile: "the config") }
        let watch = StopWatch(player: pid)
        defer { watch.end() }
        let previousTTOU = signal(SIGTTOU, SIG_IGN)  // taking the terminal back from the background
        defer { signal(SIGTTOU, previousTTOU) }
        if terminal { tcsetpgrp(STDIN_FILENO, pid) }
        // Its end is waited for without reaping it first: until the watch ends, its pid is still its own,
        // so a late signal can never reach another process that took the number.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        watch.end()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        if terminal { tcsetpgrp(STDIN_FILENO, getpgrp()) }
        let code = status & 0x7F != 0 ? 128 + (status & 0x7F) : (status >> 8) & 0xFF
        return Exit(status: code, signal: watch.received)
    }

    /// While the player runs: the signals that would end podq are caught, and each asks the player to
    /// quit instead. Their earlier handling (the TUI's own, or the default) comes back at ``end()``.
    package final class StopWatch: Sendable {
        private struct State {
            package var signal: Int32?
            package var ended = false
        }
        /// What the handlers and the caller share.
        private final class Shared: Sendable {
            package let state = Mutex(State())
        }
        private let sources: Mutex<[DispatchSourceSignal]>
        private let previous: [(Int32, sig_t?)]
        private let shared = Shared()

        package init(player: pid_t) {
            let watched = [SIGTERM, SIGINT] + (podq_signal_is_ignored(SIGHUP) == 1 ? [] : [SIGHUP])
            var previous: [(Int32, sig_t?)] = []
            var sources: [DispatchSourceSignal] = []
            let shared = self.shared
            for sig in watched {
                previous.append((sig, signal(sig, SIG_IGN)))
                let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
                source.setEventHandler {
                    shared.state.withLock { state in
                        guard !state.ended else { return }
                        state.signal = state.signal ?? sig
                        kill(player, SIGTERM)
                    }
                    // A player that does not quit on SIGTERM is ended: every wait has a deadline.
                    DispatchQueue.global().asyncAfter(deadline: .now() + 5) {
                        shared.state.withLock { if !$0.ended { kill(player, SIGKILL) } }
                    }
                }
                source.resume()
                sources.append(source)
            }
            self.sources = Mutex(sources)
            self.previous = previous
        }

        /// The first signal that came, if any.
        package var received: Int32? { shared.state.withLock { $0.signal } }

        /// The player exited (not reaped yet): no signal is sent to it from now on, and podq's earlier
        /// handling of the signals comes back. Once only.
        package func end() {
            let first = shared.state.withLock { state in
                defer { state.ended = true }
                return !state.ended
            }
            guard first else { return }
            sources.withLock { $0.forEach { $0.cancel() } }
            for (sig, handler) in previous { signal(sig, handler) }
        }
    }
}
