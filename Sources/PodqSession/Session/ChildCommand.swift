import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import Subprocess

#if canImport(System)
    import System
#else
    import SystemPackage
#endif

/// The one way podq runs a short command and reads what it prints: a password command (a private
/// feed's, a sync account's) and the keyring's `secret-tool`. Every run has a deadline: past it the
/// command and whatever it started (it runs in a session of its own) get SIGTERM, then SIGKILL 2 s
/// later, and the caller hears that it timed out. A `pass` waiting for a passphrase nobody types (in
/// cron) cannot hold a sync or a refresh for ever.
package enum ChildCommand {
    /// What a command did.
    package struct Output: Sendable {
        package var status: TerminationStatus
        package var standardOutput: String
        package var standardError: String
    }

    /// How long a command may run: 60 s (`PODQ_COMMAND_TIMEOUT`, in seconds, replaces it: tests).
    package static var deadline: Duration {
        let given = ProcessInfo.processInfo.environment["PODQ_COMMAND_TIMEOUT"].flatMap(Double.init)
        return .milliseconds(Int((given.flatMap { $0 > 0 ? $0 : nil } ?? 60) * 1000))
    }

    /// The most of its output a command is read for: what follows is read and thrown away (a password
    /// command that prints the password, then a megabyte of something else, still gives its first line).
    package static let keptOutput = 64 * 1024
    package static let keptError = 4 * 1024

    /// Runs `executable` with `arguments`, `input` on its standard input; nil when it outlived the deadline.
    package static func run(_ executable: Executable, arguments: [String], input: String? = nil) async throws -> Output? {
        try await within(deadline) {
            let result = try await Subprocess.run(
                executable, arguments: Arguments(arguments), platformOptions: sessionOptions, input: .string(input ?? ""), output: .sequence,
                error: .sequence
            ) { execution in
                async let error = Self.keep(execution.standardError, upTo: keptError)
                let output = try await Self.keep(execution.standardOutput, upTo: keptOutput)
                return (output, try await error)
            }
            let (output, error) = result.closureResult
            return Output(
                status: result.terminationStatus, standardOutput: String(decoding: output, as: UTF8.self),
                standardError: String(decoding: error, as: UTF8.self))
        }
    }

    /// The first `limit` bytes of `stream`; the rest is read to its end and thrown away.
    private static func keep(_ stream: SubprocessOutputSequence, upTo limit: Int) async throws -> [UInt8] {
        var kept: [UInt8] = []
        for try await chunk in stream where kept.count < limit {
            chunk.withUnsafeBytes { kept += $0.prefix(limit - kept.count) }
        }
        return kept
    }

    /// A session of its own, so that stopping the command stops whatever it started too: SIGTERM to
    /// the group, SIGKILL 2 s later.
    package static var sessionOptions: PlatformOptions {
        var options = PlatformOptions()
        options.createSession = true
        options.teardownSequence = [.gracefulShutDown(toProcessGroup: true, allowedDurationToNextStep: .seconds(2))]
        return options
    }

    /// `body`'s value, or nil when it takes longer than `limit`: then it is cancelled (a command run
    /// with ``sessionOptions`` is stopped with what it started). Also the on-complete hooks' clock.
    package static func within<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// The deadline in words: "60 s".
    package static var deadlineText: String {
        let seconds = Double(deadline.components.seconds) + Double(deadline.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(printf: "%.1f s", seconds)
    }
}

extension TerminationStatus {
    /// How a command ended, in words: "exit code 1", "signal 9".
    package var described: String {
        switch self {
        case .exited(let code): "exit code \(code)"
        case .signaled(let signal): "signal \(signal)"
        }
    }
}
