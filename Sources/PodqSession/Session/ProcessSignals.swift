import CPodqSystem
import FoundationEssentials
import Glibc

/// What SIGINT, SIGTERM and SIGHUP do while no part of a command handles them itself: podq ends at
/// once with 130, the one status COMMANDS.md gives a stopped command, from the command's first
/// instant (a `mark-played` waiting for another program's lock died with 143). The queue's run, the
/// TUI and the player handle them their own way (``InterruptHandler``) and give them back here.
/// SIGHUP is left alone when it was ignored at the start (`nohup podq download`).
package enum ProcessSignals {
    /// SIGHUP was ignored when podq started; read before podq installs anything.
    package static let hangUpIgnored = podq_signal_is_ignored(SIGHUP) == 1

    /// Installs the default: each of the signals ends podq with 130. Nothing a command was writing is
    /// lost by it: SQLite's transactions and the partial files are made to survive a kill.
    package static func exitOnInterrupt() {
        for sig in [SIGINT, SIGTERM] + (hangUpIgnored ? [] : [SIGHUP]) {
            signal(sig, endOnSignal)
        }
    }
}

/// The handler: only `_exit`, which is safe in a signal handler.
private func endOnSignal(_: Int32) {
    _exit(ExitCodes.interrupted)
}
