import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import Synchronization

/// Unbuffered output, so lines from the commands and from the reporter keep their order. Every line
/// passes through ``SafeText/terminal(_:)`` (no control character, escape sequence or bidi override
/// from a feed or a file, no credential in a URL), whatever the caller cleaned before.
///
/// Writes go straight to the descriptor: `FileHandle.write` traps when the reader has gone
/// (`podq episodes | head` crashed on a broken pipe). Here a closed standard output ends podq the way
/// SIGPIPE ends other tools (exit 141), with the queue and every partial file kept as after a crash.
package enum Console {
    /// One line at a time: lines of several threads never interleave.
    private static let lock = Mutex(())

    /// Writes `text` and a newline to standard output.
    package static func out(_ text: String) {
        let line = SafeText.terminal(text) + "\n"
        lock.withLock { _ in write(line, to: STDOUT_FILENO) }
    }

    /// Writes `text` and a newline to standard error.
    package static func error(_ text: String) {
        let line = SafeText.terminal(text) + "\n"
        lock.withLock { _ in write(line, to: STDERR_FILENO) }
    }

    /// Writes `text` as it is (the live download lines, which carry their own cursor movements).
    package static func raw(_ text: String) {
        lock.withLock { _ in write(text, to: STDOUT_FILENO) }
    }

    /// Writes `text` as it is to standard error (a progress line redrawn with `\r`).
    package static func rawError(_ text: String) {
        lock.withLock { _ in write(text, to: STDERR_FILENO) }
    }

    /// Standard output gathered into writes of about 64 KiB: a listing of 100,000 lines is a few
    /// hundred writes, not 100,000, and holds one buffer, not the whole text. Each piece is cleaned
    /// as ``out(_:)`` cleans a line. ``flush()`` at the end.
    package struct Buffered: ~Copyable {
        private var pending = ""

        package init() { pending.reserveCapacity(1 << 16) }

        /// Adds `text` and a newline.
        package mutating func line(_ text: String) {
            piece(text)
            pending += "\n"
        }

        /// Adds `text` as it is given, cleaned.
        package mutating func piece(_ text: String) {
            pending += SafeText.terminal(text)
            if pending.utf8.count >= 1 << 16 { flush() }
        }

        /// Writes what is gathered.
        package mutating func flush() {
            guard !pending.isEmpty else { return }
            let text = pending
            Console.lock.withLock { _ in Console.write(text, to: STDOUT_FILENO) }
            pending.removeAll(keepingCapacity: true)
        }
    }

    fileprivate static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n < 0 && errno == EPIPE { exit(ExitCodes.brokenPipe) }
                if n <= 0 { return }  // another error on a terminal: nothing better to do than drop the line
                offset += n
            }
        }
    }
}
