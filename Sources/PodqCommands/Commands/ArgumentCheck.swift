import ArgumentParser
import PodqBase
import PodqCore
import PodqSession

/// Catches a newcomer's typos before swift-argument-parser reads the words another way: an unknown
/// command (`podq dowload` would open the TUI's usage, since the TUI is the default command) and an
/// unknown long option (`download --jbos 5` would complain about `5`). Both get the nearest match, and
/// an unknown command the list of commands.
enum ArgumentCheck {
    /// The message for the first unknown command or option in `arguments`; nil when there is none.
    static func problem(in arguments: [String]) -> String? {
        var command: ParsableCommand.Type = Podq.self
        var path = ["podq"]
        var index = 0
        // The command words: every level with subcommands takes one (its default takes no words).
        while index < arguments.count, !arguments[index].hasPrefix("-") {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty else { break }
            let word = arguments[index]
            // swift-argument-parser's own `help <command>`: the words after it must name a command (`podq
            // help queu` printed the general help and exited 0).
            if word == "help" {
                let rest = Array(arguments[(index + 1)...].prefix { !$0.hasPrefix("-") })
                return rest.isEmpty || path.count > 1 ? nil : problem(in: rest).map { $0.replacingEvery(" --help'", with: " help'") }
            }
            if let next = subcommands.first(where: { name(of: $0) == word || $0.configuration.aliases.contains(word) }) {
                command = next
                path.append(word)
                index += 1
                continue
            }
            let names = subcommands.map(name(of:))
            var message = "Unknown command '\(word)' for `\(path.joined(separator: " "))`."
            if let near = Suggestion.nearest(to: word, in: names) { message += " Did you mean '\(near)'?" }
            message += "\nCommands: " + names.joined(separator: ", ") + ".\nSee '\(path.joined(separator: " ")) --help'."
            return message
        }
        // Options given without a command word belong to the default command (`podq --jobs 2` is the TUI's).
        while let fallback = command.configuration.defaultSubcommand { command = fallback }
        let options = longOptions(of: command).merging(longOptions(of: Podq.self)) { a, _ in a }
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" { break }
            // A short option: `-V` is no option of podq's (without this, the TUI's usage would answer).
            if argument.count == 2, argument.hasPrefix("-"), argument != "--", options[argument] == nil {
                var message = "Unknown option '\(argument)' for `\(path.joined(separator: " "))`."
                if argument == "-V" { message += " `podq --version` prints the version." }
                return message + "\nSee '\(path.joined(separator: " ")) --help'."
            }
            guard argument.hasPrefix("--"), argument.count > 2 else { continue }
            let name = String(argument.split(separator: "=", maxSplits: 1).first ?? "")
            if let takesValue = options[name] {
                if takesValue && !argument.contains("=") { index += 1 }
                continue
            }
            var message = "Unknown option '\(name)' for `\(path.joined(separator: " "))`."
            if let near = Suggestion.nearest(to: name, in: options.keys.sorted()) { message += " Did you mean '\(near)'?" }
            return message + "\nSee '\(path.joined(separator: " ")) --help'."
        }
        return nil
    }

    private static func name(of command: ParsableCommand.Type) -> String {
        command.configuration.commandName ?? String(describing: command).lowercased()
    }

    /// The long options of `command` (its help screen's OPTIONS), and whether each takes a value.
    static func longOptions(of command: ParsableCommand.Type) -> [String: Bool] {
        var options: [String: Bool] = [
            "--help": false, "-h": false, "--version": false, "--experimental-dump-help": false,
            "--generate-completion-script": true,
        ]
        let help =
            command == Podq.self
            ? Podq.helpMessage(includeHidden: true, columns: 10_000)
            : Podq.helpMessage(for: command, includeHidden: true, columns: 10_000)
        for line in help.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("-") else { continue }
            let column = trimmed.components(separatedBy: "  ").first ?? ""
            let words = column.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "/" }).map(String.init)
            for (i, word) in words.enumerated() where word.hasPrefix("-") && word.count >= 2 {
                options[word] = i + 1 < words.count && words[i + 1].hasPrefix("<")
            }
        }
        return options
    }
}
