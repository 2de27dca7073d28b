import Dispatch
import Glibc
import PodqCommands

/// The `podq` executable: everything lives in PodqCommands.
///
/// The main thread runs the main queue itself (the main actor's jobs: the TUI's loop, the signal
/// handlers' work) rather than through `dispatch_main()`, which an `async` main ends in:
/// `dispatch_main()` leaves the main thread with `pthread_exit`, and the unwinding that exit does
/// looked up every frame of the main thread's stack in the binary's unwind tables, 0.7 MB of one
/// download's memory for nothing (docs/DECISIONS.md, "The main thread drains the main queue").
/// libdispatch's hooks for a run loop of one's own are the ones Foundation's `RunLoop` uses on Linux.
@main
enum PodqMain {
    static func main() {
        let wake = mainQueueHandle()
        // PodqCLI.main() ends the process with the command's exit code.
        Task { @MainActor in await PodqCLI.main() }
        var events = pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
        while true {
            if poll(&events, 1, -1) < 0 && errno != EINTR { fatalError("podq: the main queue's wake-up cannot be read (errno \(errno))") }
            var count: UInt64 = 0
            _ = read(wake, &count, MemoryLayout<UInt64>.size)
            drainMainQueue(nil)
        }
    }
}

/// The main queue's wake-up (an eventfd on Linux), written whenever a job is enqueued on it.
@_silgen_name("_dispatch_get_main_queue_handle_4CF")
private func mainQueueHandle() -> Int32

/// Runs the jobs waiting on the main queue, on the main thread.
@_silgen_name("_dispatch_main_queue_callback_4CF")
private func drainMainQueue(_ message: UnsafeMutableRawPointer?)
