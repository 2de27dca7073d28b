import CPodqSystem
import Dispatch
import FoundationEssentials
import Glibc
import PodqCore
import Synchronization

/// Turns SIGINT, SIGTERM and SIGHUP (a closed terminal, a dropped ssh session) into one call of
/// `action` (stop everything, keep the partials); a second signal exits at once. SIGHUP is left
/// alone when it was ignored at the start (`nohup podq download`).
package final class InterruptHandler: Sendable {
    private let sources: Mutex<[DispatchSourceSignal]>
    private let signalled = Mutex(false)

    package init(action: @escaping @Sendable () async -> Void) {
        var sources: [DispatchSourceSignal] = []
        let hangUp = ProcessSignals.hangUpIgnored ? [] : [SIGHUP]
        for sig in [SIGINT, SIGTERM] + hangUp {
            signal(sig, SIG_IGN)
            sources.append(DispatchSource.makeSignalSource(signal: sig, queue: .global()))
        }
        self.sources = Mutex(sources)
        self.sources.withLock { sources in
            for source in sources {
                source.setEventHandler { [weak self] in
                    guard let self else { return }
                    let first = self.signalled.withLock { fired in
                        defer { fired = true }
                        return !fired
                    }
                    if first {
                        Task { await action() }
                    } else {
                        exit(ExitCodes.interrupted)  // a second Ctrl-C: stop now; the partials are on disk already
                    }
                }
                source.resume()
            }
        }
    }

    /// True once a signal arrived.
    package var fired: Bool { signalled.withLock { $0 } }

    /// Stops listening and gives the signals back to podq's default (``ProcessSignals``: exit 130).
    package func disarm() {
        sources.withLock { $0.forEach { $0.cancel() } }
        ProcessSignals.exitOnInterrupt()
    }
}
