import FoundationEssentials
import Glibc

/// A failure a command reports in one line before exiting with `code`.
package struct CommandError: Error, LocalizedError {
    package var message: String
    package var code: Int32

    package init(_ message: String, code: Int32 = ExitCodes.usage) {
        self.message = message
        self.code = code
    }

    /// Wraps any error: its message, and its code from ``ExitCodes/code(for:)``.
    package init(_ error: any Error) {
        if let error = error as? CommandError {
            self = error
            return
        }
        self.init((error as? LocalizedError)?.errorDescription ?? String(describing: error), code: ExitCodes.code(for: error) ?? ExitCodes.usage)
    }

    package var errorDescription: String? { message }
}
