import FoundationEssentials
import Glibc

/// The TUI's timing, kept when `PODQ_TRACE_FRAMES=<file>` is set, and written to that file when the
/// TUI quits: when each key was read and each frame was drawn, on `CLOCK_MONOTONIC` (the clock every
/// process shares), so `podq-bench library` can time a key from the moment it typed it to the frame
/// that answered it. Kept in memory until then: tracing writes nothing while it measures.
@MainActor
final class FrameTrace {
    private let path: String
    private var lines: [String] = []
    private var keys = 0

    /// A trace when the environment asks for one.
    static func fromEnvironment() -> FrameTrace? {
        guard let path = ProcessInfo.processInfo.environment["PODQ_TRACE_FRAMES"], !path.isEmpty else { return nil }
        return FrameTrace(path: path)
    }

    private init(path: String) {
        self.path = path
        lines.reserveCapacity(4096)
    }

    static var now: UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// The session started (before the store is read).
    func started() { lines.append("start \(Self.now)") }

    /// A key was read.
    func key() {
        keys += 1
        lines.append("key \(Self.now) \(keys)")
    }

    /// A frame was drawn, from `begin` to now; `libraryReady`: the episodes were loaded.
    func frame(begin: UInt64, libraryReady: Bool) {
        lines.append("frame \(begin) \(Self.now) \(keys) \(libraryReady ? 1 : 0)")
    }

    /// One turn of the loop spent `nanoseconds` working (not waiting for a key).
    func busy(_ nanoseconds: UInt64) {
        if nanoseconds > 16_000_000 { lines.append("busy \(Self.now) \(nanoseconds)") }
    }

    /// Writes the trace.
    func write() {
        try? (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }
}
