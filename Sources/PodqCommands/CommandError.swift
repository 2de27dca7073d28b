import Foundation

/// A failure a command reports in one line before exiting with `code`.
struct CommandError: Error, LocalizedError {
    var message: String
    var code: Int32

    init(_ message: String, code: Int32 = ExitCodes.usage) {
        self.message = message
        self.code = code
    }

    /// Wraps any error: its message, and exit code 2 (bad usage or input).
    init(_ error: any Error) {
        self.init((error as? LocalizedError)?.errorDescription ?? String(describing: error))
    }

    var errorDescription: String? { message }
}
