import Foundation

/// A failure a command reports in one line before exiting with `code`.
struct CommandError: Error, LocalizedError {
    var message: String
    var code: Int32

    init(_ message: String, code: Int32 = ExitCodes.usage) {
        self.message = message
        self.code = code
    }

    /// Wraps any error: its message, and its code from ``ExitCodes/code(for:)``.
    init(_ error: any Error) {
        if let error = error as? CommandError {
            self = error
            return
        }
        self.init((error as? LocalizedError)?.errorDescription ?? String(describing: error), code: ExitCodes.code(for: error) ?? ExitCodes.usage)
    }

    var errorDescription: String? { message }
}
