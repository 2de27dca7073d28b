import ArgumentParser
import Foundation

/// The entry point: parses the arguments, runs the command, and maps errors to podq's exit codes
/// (ArgumentParser's usage errors become 2, as product.md says, instead of 64).
public enum PodqCLI {
    /// Runs podq with `arguments` and exits the process.
    public static func main(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) async -> Never {
        do {
            var command = try Podq.parseAsRoot(arguments)
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            exit(ExitCodes.success)
        } catch let code as ExitCode {
            exit(code.rawValue)
        } catch let error as CommandError {
            CommandLog.current?.error("command failed", metadata: ["reason": "\(error.message)", "exit": "\(error.code)"])
            FileHandle.standardError.write(Data("podq: \(error.message)\n".utf8))
            exit(error.code)
        } catch {
            let code = Podq.exitCode(for: error)
            if code == .success {
                Podq.exit(withError: error)  // --help, --version
            }
            let message = Podq.fullMessage(for: error)
            FileHandle.standardError.write(Data((message + "\n").utf8))
            exit(code == .validationFailure ? ExitCodes.usage : code.rawValue)
        }
    }
}
