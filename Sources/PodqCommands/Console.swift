import Foundation
import PodqCore

/// Unbuffered output, so lines from the commands and from the reporter keep their order. Every line
/// passes through ``SafeText/terminal(_:)`` (no control character, escape sequence or bidi override
/// from a feed or a file, no credential in a URL), whatever the caller cleaned before.
enum Console {
    private static let lock = NSLock()

    /// Writes `text` and a newline to standard output.
    static func out(_ text: String) {
        let line = SafeText.terminal(text) + "\n"
        lock.withLock { FileHandle.standardOutput.write(Data(line.utf8)) }
    }

    /// Writes `text` and a newline to standard error.
    static func error(_ text: String) {
        let line = SafeText.terminal(text) + "\n"
        lock.withLock { FileHandle.standardError.write(Data(line.utf8)) }
    }
}
