import CPodqSystem
import Glibc

/// Memory freed after a big, passing piece of work (reading 100,000 episodes, parsing a 50 MB feed)
/// stays resident in the malloc arena of the thread that did it: glibc gives it back only from the
/// top of the main heap. ``release()`` hands it all back (`malloc_trim`), so a long-running TUI keeps
/// to what it uses.
public enum FreedMemory {
    /// One malloc arena, instead of glibc's eight per core: each thread that allocates
    /// under contention gets an arena of its own, and the free memory left in each stays resident.
    /// With one, the TUI over 100,000 episodes holds 24 MB of heap instead of 24 to 36 (docs/PERFORMANCE.md).
    /// Called first thing, before threads start; `MALLOC_ARENA_MAX` in the environment still wins.
    public static func limitArenas() {
        guard getenv("MALLOC_ARENA_MAX") == nil else { return }
        _ = podq_limit_malloc_arenas(1)
    }

    /// Gives the free memory of every arena back to the system.
    public static func release() {
        _ = podq_release_free_memory()
    }
}
