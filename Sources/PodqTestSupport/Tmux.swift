import Foundation

/// A private tmux server running one command in a real terminal, for end-to-end tests of what podq
/// draws. Spawned with `posix_spawn` (see ``ChildProcess``); each instance has its own socket name.
public final class Tmux: Sendable {
    public let socket: String
    private let directory: TemporaryDirectory

    /// Starts `command` (a shell command line) in a detached session of `width` × `height` cells.
    public init(command: String, width: Int = 100, height: Int = 30, environment: [String: String] = [:]) throws {
        socket = "podq-test-\(UUID().uuidString.prefix(8))"
        directory = TemporaryDirectory("podq-tmux")
        let env = environment.map { "export \($0.key)='\($0.value)'; " }.joined()
        try run([
            "new-session", "-d", "-x", String(width), "-y", String(height), "sh", "-c",
            env + command + "; echo \"[exit $?]\"; sleep 600",
        ])
    }

    /// Whether tmux is installed.
    public static var isAvailable: Bool {
        ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The visible screen as text.
    public func capture() -> String {
        (try? run(["capture-pane", "-p"])) ?? ""
    }

    /// Types keys (tmux key names, e.g. `C-c`, `q`).
    public func send(_ keys: String...) {
        _ = try? run(["send-keys"] + keys)
    }

    /// Resizes the terminal (the program gets SIGWINCH).
    public func resize(width: Int, height: Int) {
        _ = try? run(["resize-window", "-x", String(width), "-y", String(height)])
    }

    /// A tmux format of the pane, e.g. `#{alternate_on}` (1 while a full-screen program holds it).
    public func display(_ format: String) -> String {
        ((try? run(["display-message", "-p", format])) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Polls the screen until `predicate` holds; returns the last screen and whether it held.
    public func waitFor(timeout: Double = 20, _ predicate: (String) -> Bool) async -> (screen: String, ok: Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        var screen = capture()
        while !predicate(screen) {
            if Date() > deadline { return (screen, false) }
            try? await Task.sleep(for: .milliseconds(50))
            screen = capture()
        }
        return (screen, true)
    }

    /// Kills the server and everything in it.
    public func stop() {
        _ = try? run(["kill-server"])
        directory.remove()
    }

    @discardableResult
    private func run(_ arguments: [String]) throws -> String {
        let child = try ChildProcess(
            executable: "tmux", arguments: ["-L", socket, "-f", "/dev/null"] + arguments,
            environment: ["TERM": "xterm-256color"], directory: directory.path)
        child.wait(timeout: 10)
        return child.standardOutput
    }
}
