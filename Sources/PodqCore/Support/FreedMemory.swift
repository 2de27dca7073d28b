import CPodqSystem

/// Memory freed after a big, passing piece of work (reading 100,000 episodes, parsing a 50 MB feed)
/// stays resident in the malloc arena of the thread that did it: glibc gives it back only from the
/// top of the main heap. ``release()`` hands it all back (`malloc_trim`), so a long-running TUI keeps
/// to what it uses. The process has one arena (set by CPodqSystem as the program loads: glibc's
/// default of up to 8 per core left what one thread freed resident in an arena of its own).
public enum FreedMemory {
    /// Gives the free memory of every arena back to the system.
    public static func release() {
        _ = podq_release_free_memory()
    }
}
