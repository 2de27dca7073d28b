import FoundationEssentials
import Glibc

/// `posix_spawn` attributes for a child that starts with a clean signal state: nothing blocked and
/// every signal at its default action.
///
/// A child inherits the spawning thread's mask and the signals its parent ignores: spawned from a
/// Dispatch worker it would block almost everything (tmux servers in the tests ignored kill-server),
/// and a player spawned by the TUI, which ignores SIGINT, could not be stopped with Ctrl-C.
public enum CleanSpawn {
    /// Calls `body` with such attributes; `newProcessGroup` also puts the child in a group of its own.
    public static func withAttributes<T>(newProcessGroup: Bool = false, _ body: (inout posix_spawnattr_t) throws -> T) rethrows -> T {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if newProcessGroup {
            flags |= POSIX_SPAWN_SETPGROUP
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        return try body(&attributes)
    }
}
