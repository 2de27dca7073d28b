/// What the TUI's loop needs of a terminal: its size, a key within a wait, a frame drawn, the terminal
/// handed to another program and back, and restored at the end. `CursesScreen` (PodqTerminal) is the
/// ncurses one; `TestScreen` (the test support) plays keys and keeps the frames as text, as ratatui's
/// `TestBackend`, so the loop runs in-process in a test. Used on the main actor only.
@MainActor
public protocol TerminalScreen: AnyObject {
    /// Columns and lines now.
    var size: (width: Int, height: Int) { get }
    /// True once nobody can see or type any more (the terminal hung up).
    var isHungUp: Bool { get }
    /// The next key, waiting up to `milliseconds` for one (0: do not wait); nil when none came.
    func readKey(waiting milliseconds: Int32) -> Key?
    /// Draws `grid` (only what differs from the last frame needs to go out).
    func draw(_ grid: Grid)
    /// Forgets what is on the terminal: the next frame is drawn whole (after a resize).
    func invalidate()
    /// Gives the terminal to `body` (a player) and takes it back afterwards.
    func handOver<T>(_ body: () throws -> T) rethrows -> T
    /// Puts the terminal back as it was before the TUI.
    func restore()
}
