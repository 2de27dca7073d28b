import Foundation

/// Runs the built `podq` binary with a home of its own, as the CLI tests do.
public struct PodqInvocation: Sendable {
    /// `PODQ_HOME` for every run.
    public let home: String
    /// Where the output files go.
    public let directory: String

    public init(home: String, directory: String) {
        self.home = home
        self.directory = directory
    }

    /// Starts `podq <arguments>` without waiting.
    /// - Parameter stdinPath: the file standard input reads (nothing by default).
    public func start(_ arguments: [String], environment: [String: String] = [:], stdinPath: String = "/dev/null") throws -> ChildProcess {
        try ChildProcess(
            executable: ChildProcess.podqExecutable, arguments: arguments,
            environment: ["PODQ_HOME": home].merging(environment) { $1 }, directory: directory, stdinPath: stdinPath)
    }

    /// Runs `podq <arguments>` to its end: how it exited, its standard output and error.
    @discardableResult
    public func run(_ arguments: [String], environment: [String: String] = [:], stdinPath: String = "/dev/null", timeout: Double = 60) async throws
        -> (exit: ChildProcess.Exit, out: String, err: String)
    {
        let child = try start(arguments, environment: environment, stdinPath: stdinPath)
        let exit = await Task.detached { child.wait(timeout: timeout) }.value
        return (exit, child.standardOutput, child.standardError)
    }
}

extension ChildProcess {
    /// Waits off the cooperative pool.
    public func finish(timeout: Double = 60) async -> Exit {
        await Task.detached { self.wait(timeout: timeout) }.value
    }
}
