import FoundationEssentials
import Glibc
import Logging
import PodqBase
import PodqCore

/// What every queue command opens: the paths, the config, the store.
package struct QueueContext {
    package let paths: PodqPaths
    package let settings: Settings
    package let store: QueueStore
    /// The process's log (``CommandLog``).
    package let log: Logger
    /// True when `--download-dir` was given: it then wins over a podcast's own `download-folder`.
    package var downloadDirGiven = false
    /// What is said while another program holds the database's lock, from the command's start.
    package var lockNotice = LockWaitNotice(LockWait())

    /// ``open(_:downloadDir:echoLog:lockNotes:)`` with the options spelled out.
    package static func open(
        home: String?, downloadDir: String? = nil, verbose: Bool = false, echoLog: Bool = true, lockNotes: (@Sendable (String) -> Void)? = nil
    ) throws -> QueueContext {
        let base = PodqPaths(home: home, downloadDir: downloadDir)
        let settings: Settings
        do {
            settings = try ConfigFile(path: base.configFile).load()
        } catch {
            // No config to read the log size from: the defaults, so that PodqCLI logs the failure.
            CommandLog.start(home: base.home, settings: Settings(), verbose: verbose, echo: false)
            throw CommandError(error)
        }
        let paths = base.applying(settings, downloadDirGiven: downloadDir != nil)
        removeOrphanTemporaryFiles(near: base.configFile)
        let log = CommandLog.start(home: paths.home, settings: settings, verbose: verbose, echo: echoLog)
        let lockWait = LockWait()
        let notice = LockWaitNotice(lockWait) { line in
            (lockNotes ?? { Console.error("podq: " + $0) })(line)
            log.notice("\(line)")
        }
        notice.start()
        do {
            return QueueContext(
                paths: paths, settings: settings, store: try QueueStore(path: paths.database, lockWait: lockWait), log: log,
                downloadDirGiven: downloadDir != nil, lockNotice: notice)
        } catch {
            throw CommandError(error)
        }
    }

    /// Takes the queue's lock (one runner at a time) and reconciles the store with the disk. Returns
    /// nil, after saying which process holds it, when another podq runs the queue.
    /// - Throws: ``CommandError`` when the lock file or the store fails.
    package func takeQueue() throws -> HomeLock? {
        let lock = HomeLock(home: paths.home)
        do {
            if let holder = try lock.acquire() {
                let who = holder.pid.map { "process \($0)" } ?? "another process"
                Console.error(
                    "podq: \(who) (\(holder.command)) is running the queue in \(paths.home); "
                        + "wait for it or quit it, or use `podq queue add` to give it more work.")
                return nil
            }
            try store.reconcile()
            return lock
        } catch {
            lock.release()
            throw CommandError(error)
        }
    }

    /// Removes temporary config files left by a podq that died while writing one (`.config.tmp-<pid>`
    /// whose process is gone).
    package static func removeOrphanTemporaryFiles(near configFile: String) {
        let folder = LexicalPath.parent(of: configFile)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(".config.tmp-") {
            guard let pid = Int32(name.dropFirst(".config.tmp-".count)), pid != getpid(), kill(pid, 0) != 0 else { continue }
            unlink(LexicalPath.join(folder, name))
        }
    }
}
