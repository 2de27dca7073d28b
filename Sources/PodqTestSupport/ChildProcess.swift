import Foundation
import PodqCore
import Synchronization

/// A child process started with `posix_spawn` (not `Foundation.Process`, which hangs around tmux;
/// see docs/DECISIONS.md), with its output in files and its resource usage on exit.
public final class ChildProcess: Sendable {
    /// How the child ended.
    public struct Exit: Sendable, Equatable {
        /// The exit code, when it exited.
        public var code: Int32?
        /// The signal that killed it, when one did.
        public var signal: Int32?
        /// Peak resident memory in bytes: the highest `VmHWM` read from `/proc` while ``wait(timeout:)``
        /// waited (every 5 ms). Not `ru_maxrss`: `posix_spawn` starts the child in the parent's memory
        /// (`CLONE_VM`), and Linux keeps the parent's high-water mark in the child's count at `exec`,
        /// so a bench holding 200 MB read 200 MB for every child.
        public var maxRSS: Int64
        /// User plus system CPU time in seconds.
        public var cpuSeconds: Double
    }

    public let pid: pid_t
    public let stdoutPath: String
    public let stderrPath: String
    private let exited = Mutex<Exit?>(nil)

    /// Starts `executable` with `arguments`; its standard output and error go to files in `directory`,
    /// or, given a `terminal` (a pseudo-terminal's device), its input, output and error are that terminal.
    public init(
        executable: String, arguments: [String], environment: [String: String] = [:],
        directory: String, stdinPath: String = "/dev/null", terminal: String? = nil
    ) throws {
        stdoutPath = (directory as NSString).appendingPathComponent("stdout-\(UUID().uuidString.prefix(8)).txt")
        stderrPath = (directory as NSString).appendingPathComponent("stderr-\(UUID().uuidString.prefix(8)).txt")
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let terminal {
            posix_spawn_file_actions_addopen(&actions, 0, terminal, O_RDWR | O_NOCTTY, 0)
            posix_spawn_file_actions_adddup2(&actions, 0, 1)
            posix_spawn_file_actions_adddup2(&actions, 0, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // A clean signal state (see CleanSpawn): tmux servers spawned with the Dispatch worker's mask
        // ignored kill-server; a podq under test must see SIGINT and SIGTERM as a user's shell sends them.
        var pid: pid_t = 0
        let rc = CleanSpawn.withAttributes { posix_spawnp(&pid, executable, &actions, &$0, argv, envp) }
        guard rc == 0 else {
            throw NSError(
                domain: NSPOSIXErrorDomain, code: Int(rc),
                userInfo: [NSLocalizedDescriptionKey: "cannot start \(executable): \(String(cString: strerror(rc)))"])
        }
        self.pid = pid
    }

    /// Sends `signal` to the child.
    public func send(_ signal: Int32) { kill(pid, signal) }

    /// Waits for the child to end; kills it with SIGKILL after `timeout` seconds.
    @discardableResult
    public func wait(timeout: Double = 60) -> Exit {
        if let exited = exited.withLock({ $0 }) { return exited }
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        var usage = rusage()
        var highWater: Int64 = 0
        while true {
            highWater = max(highWater, Self.highWaterMark(of: pid))
            let r = wait4(pid, &status, WNOHANG, &usage)
            if r == pid { break }
            if r < 0 && errno != EINTR { break }
            if Date() > deadline {
                kill(pid, SIGKILL)
                _ = wait4(pid, &status, 0, &usage)
                break
            }
            usleep(5_000)
        }
        let signaled = status & 0x7F
        let exit = Exit(
            code: signaled == 0 ? (status >> 8) & 0xFF : nil,
            signal: signaled == 0 ? nil : signaled,
            maxRSS: highWater > 0 ? highWater : Int64(usage.ru_maxrss) * 1024,
            cpuSeconds: Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6)
        exited.withLock { $0 = exit }
        return exit
    }

    /// `VmHWM` of `pid` in bytes, 0 when it cannot be read (the process has ended).
    static func highWaterMark(of pid: pid_t) -> Int64 {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kB = line.split(separator: " ").dropFirst().first(where: { !$0.isEmpty }).flatMap({ Int64($0) })
        else { return 0 }
        return kB * 1024
    }

    /// What the child wrote to standard output so far.
    public var standardOutput: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    /// What the child wrote to standard error so far.
    public var standardError: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// The folder of the test binary, where SwiftPM also puts the `podq` executable.
    public static var productsDirectory: URL {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("podq").path) { return url }
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    /// The path of the built `podq` executable.
    public static var podqExecutable: String { productsDirectory.appendingPathComponent("podq").path }
}
