import Foundation

/// Unbuffered output, so lines from the commands and from the reporter keep their order.
enum Console {
    private static let lock = NSLock()

    /// Writes `text` and a newline to standard output.
    static func out(_ text: String) {
        lock.withLock { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }
    }

    /// Writes `text` and a newline to standard error.
    static func error(_ text: String) {
        lock.withLock { FileHandle.standardError.write(Data((text + "\n").utf8)) }
    }
}
