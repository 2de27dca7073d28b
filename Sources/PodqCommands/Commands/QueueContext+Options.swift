import PodqSession

extension QueueContext {
    /// Resolves the paths, reads the config, opens the store and the log.
    /// - Parameter echoLog: with `--verbose`, copy the log to standard error (not for the TUI).
    /// - Throws: ``CommandError`` naming the bad config key or the damaged database.
    /// - Parameter lockNotes: where a wait for another program's lock is said until the command routes
    ///   it elsewhere (``LockWaitNotice/route(to:)``): standard error by default.
    static func open(
        _ global: GlobalOptions, downloadDir: String? = nil, echoLog: Bool = true, lockNotes: (@Sendable (String) -> Void)? = nil
    ) throws -> QueueContext {
        try open(home: global.home, downloadDir: downloadDir, verbose: global.verbose, echoLog: echoLog, lockNotes: lockNotes)
    }
}
