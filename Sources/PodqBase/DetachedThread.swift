#if canImport(Glibc)
    import Glibc
#endif

/// A thread of its own for work that blocks (polling, reading a socket) and must not hold one of
/// Swift's cooperative threads: what `Thread.detachNewThread` was (FoundationEssentials has no `Thread`).
public enum DetachedThread {
    /// Runs `body` on a new detached POSIX thread.
    public static func start(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { raw in
                let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                box.body()
                return nil
            }, box)
        if started == 0 {
            pthread_detach(thread)
        } else {
            // No thread: the work still happens, on a thread of the runtime's.
            let box = Unmanaged<Box>.fromOpaque(box).takeRetainedValue()
            Task.detached { box.body() }
        }
    }

    private final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
