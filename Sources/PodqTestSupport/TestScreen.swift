import Foundation
import PodqUI

/// A ``TerminalScreen`` for tests, as ratatui's `TestBackend`: it plays a script of keys, each once the
/// last frame drawn shows what the step waits for, and keeps every frame as text. The TUI's loop then
/// runs in-process, on the test's main actor. A script that stalls (its condition never shows within
/// `patience` seconds) ends the session with `q`, and ``stalled`` says at which step.
@MainActor
public final class TestScreen: TerminalScreen {
    /// One key of the script: sent once `when` holds for the last frame's text.
    public struct Step {
        /// The key; nil for the terminal hanging up (the window closed).
        public var key: Key?
        public var when: (String) -> Bool
        public init(_ key: Key?, when: @escaping (String) -> Bool = { _ in true }) {
            self.key = key
            self.when = when
        }
        /// The terminal hangs up once the screen shows `text`.
        public static func hangUp(after text: String) -> Step {
            Step(nil) { $0.contains(text) }
        }
        /// A character key, once the screen shows `text` (any screen when nil).
        public static func type(_ character: Character, after text: String? = nil) -> Step {
            Step(.character(character)) { screen in text.map(screen.contains) ?? true }
        }
    }

    public let size: (width: Int, height: Int)
    public private(set) var isHungUp = false
    /// Every frame drawn, as text (one line per row, trailing spaces kept).
    public private(set) var frames: [String] = []
    /// The step the script stopped at when its condition never showed; nil when it ran through.
    public private(set) var stalled: Int?
    /// True once ``restore()`` was called.
    public private(set) var restored = false
    private var script: [Step]
    private var played = 0
    private let patience: Double
    private var waitingSince = Date()

    /// The loop's clock when the test gives it (`TUISession.run(clock:)`): each wait for a key that
    /// finds none moves it on by the whole wait, so the loop's timers (frames, the sync interval) run
    /// in its time, not the machine's.
    public let time: ManualTime?

    public init(width: Int = 100, height: Int = 20, script: [Step], patience: Double = 20, time: ManualTime? = nil) {
        size = (width, height)
        self.script = script
        self.patience = patience
        self.time = time
    }

    /// The last frame's text.
    public var screen: String { frames.last ?? "" }

    public func readKey(waiting milliseconds: Int32) -> Key? {
        if let step = script.first {
            if step.when(screen) {
                script.removeFirst()
                played += 1
                waitingSince = Date()
                if step.key == nil { isHungUp = true }
                return step.key
            }
            if Date().timeIntervalSince(waitingSince) > patience {
                stalled = played
                script.removeAll()
                return .character("q")
            }
        }
        // A real terminal would wait for a key: wait a little (never the whole idle wait); the loop's
        // own clock, when the test gave one, moves on by all of it.
        usleep(UInt32(min(max(milliseconds, 0), 10)) * 1000)
        time?.advance(by: Double(max(milliseconds, 0)) / 1000)
        return nil
    }

    public func draw(_ grid: Grid) { frames.append(grid.text) }
    public func invalidate() {}
    public func handOver<T>(_ body: () throws -> T) rethrows -> T { try body() }
    public func restore() { restored = true }
}
