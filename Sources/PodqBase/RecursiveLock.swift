#if canImport(Glibc)
    import Glibc
#endif

/// A lock its holder may take again (a POSIX recursive mutex): what `NSRecursiveLock` was, which
/// FoundationEssentials does not have.
public final class RecursiveLock: @unchecked Sendable {
    // @unchecked: the one stored property is a pointer set once in init; what it points to, a
    // pthread mutex at a fixed address of its own (never moved, freed in deinit), is the
    // synchronisation itself, which POSIX makes safe to use from any thread.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// `body`, run holding the lock.
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
