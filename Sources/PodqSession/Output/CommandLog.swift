import FoundationEssentials
import Glibc
import Logging
import PodqBase
import PodqCore
import Synchronization

/// The log of this podq process: `<home>/podq.log` (rotated at the config's `log-size`), and with
/// `--verbose` a copy of every line, debug included, on standard error.
package enum CommandLog {
    private static let latest = Mutex<Logger?>(nil)

    /// The log file's name in the home.
    package static let fileName = "podq.log"

    /// The logger of the command that runs, once it opened its home; nil before (a usage error).
    package static var current: Logger? { latest.withLock { $0 } }

    /// Makes the process's logger for `home` and remembers it for ``current``.
    /// - Parameters:
    ///   - echo: copy the lines to standard error (`--verbose`; not for the TUI, which owns the terminal).
    @discardableResult
    package static func start(home: String?, settings: Settings, verbose: Bool, echo: Bool) -> Logger {
        let file = home.flatMap { home -> LogFile? in
            guard settings.logSize > 0 else { return nil }
            return LogFile(path: LexicalPath.join(home, fileName), maxBytes: settings.logSize)
        }
        let level: Logger.Level = verbose ? .debug : .info
        let toStandardError: @Sendable (String) -> Void = { Console.error($0) }
        let echoLine = verbose && echo ? toStandardError : nil
        var logger = Logger(label: "podq") { _ in PodqLogHandler(file: file, level: level, echo: echoLine) }
        logger.logLevel = level
        latest.withLock { $0 = logger }
        logger.debug(
            "podq \(PodqVersion.current) started",
            metadata: [
                "args": "\(CommandLine.arguments.dropFirst().joined(separator: " "))"
            ])
        return logger
    }
}
