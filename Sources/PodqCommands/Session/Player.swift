import Foundation
import PodqCore

/// Why an episode could not be played, with what to do.
enum PlayerError: Error, LocalizedError {
    case noPlayer(configFile: String)
    case notFound(command: String, configFile: String)
    case notCompleted(id: Int64, state: String)
    case fileMissing(path: String)
    case noSuchDownload(id: Int64)
    case failed(command: String, status: Int32)

    var errorDescription: String? {
        switch self {
        case .noPlayer(let config):
            "No player found (looked for mpv, ffplay, vlc and xdg-open). Install one, or set `player = <command>` in \(config)."
        case .notFound(let command, let config):
            "The player '\(command)' is not installed or not on PATH; install it or change `player` in \(config)."
        case .notCompleted(let id, let state):
            "#\(id) is \(state); only a completed download can be played."
        case .fileMissing(let path):
            "The file \(path) is gone (moved or deleted); `podq queue` lists what is left."
        case .noSuchDownload(let id):
            "There is no download #\(id); `podq queue` lists them."
        case .failed(let command, let status):
            "The player '\(command)' exited with status \(status)."
        }
    }
}

/// Runs the configured player (`player` in the config) on a file, in the foreground of the terminal.
enum Player {
    /// Players tried, in order, when the config names none: each with the arguments that make it play
    /// one file and exit.
    static let fallbacks: [[String]] = [["mpv"], ["ffplay", "-nodisp", "-autoexit"], ["vlc", "--play-and-exit"], ["xdg-open"]]

    /// The argument vector that plays `file`: the config's words, with `%f` replaced by the file or the
    /// file added at the end; without a config, the first fallback found on `PATH`.
    static func command(
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
    static func locate(_ command: String, in path: String) -> String? {
        if command.contains("/") { return access(command, X_OK) == 0 ? command : nil }
        for folder in path.split(separator: ":") {
            let candidate = String(folder) + "/" + command
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// The completed download `id`'s file.
    static func file(of id: Int64, in store: QueueStore) throws -> String {
        guard let row = try store.download(id: id) else { throw PlayerError.noSuchDownload(id: id) }
        guard row.state == .completed else { throw PlayerError.notCompleted(id: id, state: row.state.rawValue) }
        guard FileManager.default.fileExists(atPath: row.destination) else { throw PlayerError.fileMissing(path: row.destination) }
        return row.destination
    }

    /// Runs `argv` with the terminal, in its own process group made the terminal's foreground (so
    /// Ctrl-C stops the player, not podq), and waits for it. Returns its exit status.
    static func run(_ argv: [String]) throws(PlayerError) -> Int32 {
        let terminal = isatty(STDIN_FILENO) == 1
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        var pid: pid_t = 0
        // Default signals (podq ignores SIGINT; the player must not), and a group of its own on a terminal.
        let rc = CleanSpawn.withAttributes(newProcessGroup: terminal) { posix_spawnp(&pid, argv[0], nil, &$0, cArgs, environ) }
        guard rc == 0 else { throw .notFound(command: argv[0], configFile: "the config") }
        let previousTTOU = signal(SIGTTOU, SIG_IGN)  // taking the terminal back from the background
        defer { signal(SIGTTOU, previousTTOU) }
        if terminal { tcsetpgrp(STDIN_FILENO, pid) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        if terminal { tcsetpgrp(STDIN_FILENO, getpgrp()) }
        if status & 0x7F != 0 { return 128 + (status & 0x7F) }
        return (status >> 8) & 0xFF
    }
}
