import FoundationEssentials
import Glibc
import PodqBase
import PodqCore

/// Asks for a password: on the terminal without echo when there is one (as `sudo` and `ssh` do),
/// else the first line of standard input (`echo "$PW" | podq add … --user me`).
package enum PasswordPrompt {
    /// The password of `user`, asked for (`podq add --user`, `podq login`).
    /// - Throws: ``CommandError`` when none came.
    package static func ask(for user: String) throws(CommandError) -> String {
        guard let password = read("Password for \(SafeText.clean(user)): ") else {
            throw CommandError("no password given for \(SafeText.clean(user)); type it when asked, pipe it in, or use --password-command.")
        }
        return password
    }

    /// The password typed or piped; nil when nothing came (end of input).
    package static func read(_ prompt: String) -> String? {
        guard isatty(STDIN_FILENO) == 1 else { return readLine(strippingNewline: true) }
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        let fd = tty >= 0 ? tty : STDIN_FILENO
        defer { if tty >= 0 { close(tty) } }
        _ = prompt.withCString { write(fd, $0, strlen($0)) }
        var saved = termios()
        let canHide = tcgetattr(fd, &saved) == 0
        if canHide {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            quiet.c_lflag |= tcflag_t(ECHONL)
            tcsetattr(fd, TCSAFLUSH, &quiet)
        }
        defer { if canHide { tcsetattr(fd, TCSAFLUSH, &saved) } }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while Glibc.read(fd, &byte, 1) == 1, byte != UInt8(ascii: "\n") { bytes.append(byte) }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}
