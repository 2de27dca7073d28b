/// When the TUI's loop draws a frame and how long it waits for a key before its next turn: pure,
/// driven by the loop's clock (seconds, monotonic), tested without a terminal (FramePacerTests).
///
/// - The first frame is drawn at once; a key's frame at once after the key.
/// - While anything moves (a download runs), frames come on a steady cadence, one every
///   ``interval``, whether or not bytes arrived in between: a bar over a bursty link moves evenly,
///   and the loop wakes for a key or for the next frame's deadline only (about 12 times a second).
///   Deadlines are on a fixed schedule (each an interval after the one before, not after the loop got
///   round to it), so a late wake-up does not push every later frame back.
/// - When nothing moves, a change (a message, the library read) is drawn at the next deadline; with
///   nothing changed the loop wakes every ``awakeWait`` ms to see whether something did, and every
///   ``idleWait`` ms once nothing has happened for ``idleAfter`` seconds.
public struct FramePacer: Sendable, Equatable {
    /// The time between frames while something moves: about 12 a second (smooth for bars, half the
    /// CPU of 20; docs/PERFORMANCE.md).
    public static let interval = 0.085
    /// Seconds with nothing drawn and nothing moving after which the loop wakes less often.
    public static let idleAfter = 2.0
    /// Milliseconds to wait for a key when nothing moves and nothing changed.
    public static let awakeWait: Int32 = 50
    /// ... and once idle.
    public static let idleWait: Int32 = 500
    /// The time between steps of the animations (a bar of unknown length, a spinner), whatever the
    /// frame rate.
    public static let animationStep = 0.2

    /// When the next frame is due.
    public private(set) var nextFrame = 0.0
    /// When the last frame was drawn; nil before the first.
    public private(set) var lastFrame: Double?

    public init() {}

    /// Milliseconds to wait for a key before the loop's next turn, at `now`: 0 before the first frame
    /// or when a frame is already due; the time to the next deadline while something moves or a change
    /// waits to be drawn; else ``awakeWait`` or ``idleWait``.
    public func wait(now: Double, moving: Bool, changed: Bool) -> Int32 {
        guard let lastFrame else { return 0 }
        if moving || changed {
            let milliseconds = ((nextFrame - now) * 1000).rounded(.up)
            return Int32(max(0, min(Double(Self.idleWait), milliseconds)))
        }
        return now - lastFrame > Self.idleAfter ? Self.idleWait : Self.awakeWait
    }

    /// Whether to draw a frame at `now`, after a turn that read `key` (or none), with something moving
    /// or a change to show; when it says yes, the frame counts as drawn and the next one is scheduled.
    public mutating func frameDue(now: Double, moving: Bool, changed: Bool, key: Bool) -> Bool {
        let due = lastFrame == nil || key || ((moving || changed) && now >= nextFrame)
        guard due else { return false }
        // A whole interval after a key's frame (or after a long pause); else on the schedule.
        let behind = now - nextFrame >= Self.interval
        nextFrame = key || lastFrame == nil || behind ? now + Self.interval : nextFrame + Self.interval
        lastFrame = now
        return true
    }

    /// The animations' step at `now`: advances every ``animationStep`` seconds.
    public static func tick(at now: Double) -> Int { Int((now / animationStep).rounded(.down)) }
}
