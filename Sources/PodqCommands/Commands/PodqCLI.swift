import ArgumentParser
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqSession

/// The entry point: parses the arguments, runs the command, and maps errors to podq's exit codes
/// through the one table (``ExitCodes/code(for:)``); ArgumentParser's usage errors become 2, as
/// docs/COMMANDS.md says, instead of 64.
public enum PodqCLI {
    /// Runs podq with `arguments` and exits the process.
    public static func main(_ given: [String] = Array(CommandLine.arguments.dropFirst())) async -> Never {
        // From the first instant: a signal before the command handles it ends podq with 130.
        ProcessSignals.exitOnInterrupt()
        let arguments = globalOptionsMoved(given)
        // `podq --version` and `podq -V` (as cargo, rustc and python): the name with the version, as git says it.
        if arguments == ["--version"] || arguments == ["-V"] {
            Console.out(PodqVersion.described)
            exit(ExitCodes.success)
        }
        // `podq help config`: every config key (the man page's CONFIGURATION, docs/CONFIG.md).
        if arguments == ["help", "config"] || arguments == ["config", "--help"] {
            Console.raw(GeneratedDocs.configHelp())
            exit(ExitCodes.success)
        }
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
        } catch  where ExitCodes.code(for: error) != nil {
            // podq's own errors: their message, and their code from the one table.
            let failure = CommandError(error)
            CommandLog.current?.error("command failed", metadata: ["reason": "\(failure.message)", "exit": "\(failure.code)"])
            Console.error("podq: \(failure.message)")
            exit(failure.code)
        } catch {
            let code = Podq.exitCode(for: error)
            if code == .success {
                // `podq nosuch --help` would print the TUI's help (the default command's) and exit 0.
                if arguments.first != "---completion", let problem = ArgumentCheck.problem(in: arguments) {
                    Console.error("Error: " + problem)
                    exit(ExitCodes.usage)
                }
                Podq.exit(withError: error)  // --help, --version, a shell's completion request
            }
            // A typo gets the nearest command or option (worked out only now: building the help
            // screens it reads costs 2–3 MB, which a command that parses need not pay).
            if let problem = ArgumentCheck.problem(in: arguments) {
                Console.error("Error: " + problem)
                exit(ExitCodes.usage)
            }
            let message = Podq.fullMessage(for: error)
            Console.error(message)
            exit(code == .validationFailure ? ExitCodes.usage : code.rawValue)
        }
    }

    /// `podq --home DIR search …` as `podq search --home DIR …`: the options every command takes
    /// (`--home`, `-v`), given before the command's name as with `git -C`, go after it.
    static func globalOptionsMoved(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if word == "--home", index + 1 < arguments.count {
                leading += [word, arguments[index + 1]]
                index += 2
            } else if word.hasPrefix("--home=") || word == "-v" || word == "--verbose" {
                leading.append(word)
                index += 1
            } else {
                break
            }
        }
        guard !leading.isEmpty else { return arguments }
        // The command's words (`queue add`), at every level that has subcommands.
        var command: ParsableCommand.Type = Podq.self
        var words: [String] = []
        while index < arguments.count,
            let next = command.configuration.subcommands.first(where: { $0.configuration.commandName == arguments[index] })
        {
            words.append(arguments[index])
            command = next
            index += 1
        }
        guard !words.isEmpty else { return arguments }
        return words + leading + arguments[index...]
    }
}
