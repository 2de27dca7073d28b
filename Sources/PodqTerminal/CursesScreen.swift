import CNcursesw
import CPodqSystem
import FoundationEssentials
import Glibc
import PodqUI

/// The one owner of curses: sets the terminal up, draws ``Grid``s, reads keys, and restores the
/// terminal. ncurses is not thread-safe: use it from the main actor only.
@MainActor
public final class CursesScreen {
    private let window: UnsafeMutablePointer<WINDOW>
    /// Where frames are written: the terminal ncurses was started on.
    private let output: Int32
    /// Turns frames into bytes for this terminal (set up once curses knows the terminal).
    private var encoder: FrameEncoder!
    private var restored = false
    /// The grid on screen now: only cells that differ from it are drawn.
    private var shown: Grid?
    /// How long ``readKey(waiting:)`` waits, in milliseconds.
    private var waitTime: Int32 = 50
    /// True once the terminal hung up (its window closed, its ssh session dropped): no key will come,
    /// and reading would return at once, forever. The caller leaves as after SIGHUP.
    public private(set) var isHungUp = false

    /// Enters curses mode. Falls back to `C.UTF-8` when the locale is not UTF-8 (cron, CI), so wide
    /// text is drawn right. `NO_COLOR` turns colours off.
    /// - Throws: ``TerminalError`` when there is no usable terminal.
    /// - Parameter mouse: report clicks and the wheel (the config's `mouse`).
    public convenience init(mouse: Bool = true) throws(TerminalError) {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw .notATerminal }
        try self.init(input: STDIN_FILENO, output: STDOUT_FILENO, term: nil, mouse: mouse)
    }

    /// Enters curses mode on the terminal type `term` (nil: `TERM`) reading `input` and writing
    /// `output`: the terminal's descriptors, or in tests a socket that counts the writes of a frame.
    init(input: Int32, output: Int32, term: String?, mouse: Bool) throws(TerminalError) {
        var reason = [CChar](repeating: 0, count: 200)
        guard podq_curses_load(&reason, UInt(reason.count)) == 1 else {
            throw .noCurses(reason: String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        setlocale(LC_ALL, "")
        if podq_locale_is_utf8() == 0 { setlocale(LC_CTYPE, "C.UTF-8") }
        guard let window = podq_curses_start(input, output, term) else {
            throw .cannotStart(term: term ?? ProcessInfo.processInfo.environment["TERM"])
        }
        self.window = window
        self.output = output
        podq_curses_modes(window, mouse ? 1 : 0, waitTime)
        let colors = ProcessInfo.processInfo.environment["NO_COLOR"].map({ !$0.isEmpty }) != true && podq_curses_colors() == 1
        // curses' own first refresh (its clear of the screen) now: it would come at the first key
        // read otherwise, and could wipe a frame podq drew.
        podq_curses_refresh(window)
        guard let encoder = Self.encoder(colors: colors) else {
            restore()
            throw .cannotStart(term: term ?? ProcessInfo.processInfo.environment["TERM"])
        }
        self.encoder = encoder
    }

    /// The size of the terminal now.
    public var size: (width: Int, height: Int) { (Int(podq_curses_width(window)), Int(podq_curses_height(window))) }

    /// Draws the cells of `grid` that changed since the last frame: one write to the terminal. curses
    /// keeps the terminal's modes and reads the keys; the frames go around it (``FrameEncoder``).
    public func draw(_ grid: Grid) {
        let bytes = encoder.encode(grid, since: shown)
        shown = grid
        write(bytes)
    }

    /// Writes `bytes` to the terminal, all of them unless it is gone (the loop then sees the hang-up at
    /// its next key).
    private func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let n = Glibc.write(output, buffer.baseAddress! + done, buffer.count - done)
                if n > 0 {
                    done += n
                } else if n < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }

    /// The frame encoder for this terminal, from its terminfo entry; nil when it cannot move the
    /// cursor (a table cannot be drawn there).
    private static func encoder(colors: Bool) -> FrameEncoder? {
        guard let cup = podq_capability("cup").map({ String(cString: $0) }) else { return nil }
        func bytes(_ name: String) -> [UInt8] { podq_capability(name).map { FrameEncoder.unpadded(String(cString: $0)) } ?? [] }
        let reset = bytes("sgr0")
        let styles = FrameEncoder.styles(reset: reset, bold: bytes("bold"), dim: bytes("dim"), reverse: bytes("rev")) { color in
            guard colors, let setaf = podq_capability("setaf"), let text = podq_tiparm1(setaf, color) else { return nil }
            return FrameEncoder.unpadded(String(cString: text))
        }
        var move: (Int, Int) -> [UInt8] = FrameEncoder.ecmaMove
        if cup != FrameEncoder.ecmaCup {
            move = { x, y in
                guard let text = podq_tiparm2(cup, Int32(y), Int32(x)) else { return [] }
                return FrameEncoder.unpadded(String(cString: text))
            }
        }
        return FrameEncoder(
            styles: styles, reset: reset, clear: bytes("clear"), move: move,
            lastCellScrolls: podq_flag("am") == 1 && podq_flag("xenl") == 0,
            libraryWidth: { wcwidth(wchar_t(bitPattern: $0.value)) })
    }

    /// Forgets what is on screen, so the next ``draw(_:)`` repaints everything (after a resize).
    public func invalidate() {
        shown = nil
    }

    /// Waits up to `milliseconds` (the frame time, 50 ms, by default) for a key.
    public func readKey(waiting milliseconds: Int32 = 50) -> Key? {
        if milliseconds != waitTime {
            waitTime = milliseconds
            podq_curses_timeout(window, milliseconds)
        }
        var value: wint_t = 0
        let rc = podq_curses_read(window, &value)
        if rc == podq_err() {
            // No key: the wait ended, or the terminal is gone (then every read fails at once).
            if podq_terminal_hung_up(STDIN_FILENO) == 1 { isHungUp = true }
            return nil
        }
        if rc == podq_key_code_yes(), Int32(value) == podq_key_mouse() {
            var x: Int32 = 0, y: Int32 = 0
            switch podq_curses_read_mouse(&x, &y) {
            case 1: return .mouse(.click, x: Int(x), y: Int(y))
            case 2: return .mouse(.wheelUp, x: Int(x), y: Int(y))
            case 3: return .mouse(.wheelDown, x: Int(x), y: Int(y))
            default: return nil
            }
        }
        let key = Key.decode(UInt32(value), isKeyCode: rc == podq_key_code_yes())
        // curses repaints its own (blank) idea of the screen after a resize, at its next read: let it
        // do so now, before podq's next frame repaints everything, not after.
        if key == .resize { podq_curses_refresh(window) }
        return key
    }

    /// Gives the terminal to another program (a player) while `body` runs: curses mode is left, the
    /// screen restored, and afterwards curses mode comes back and the next frame repaints everything.
    public func handOver<T>(_ body: () throws -> T) rethrows -> T {
        podq_curses_cursor(1)
        leaveAtBottom()
        podq_curses_suspend()
        defer {
            podq_curses_resume()
            podq_curses_cursor(0)
            shown = nil
            podq_curses_erase(window)
            podq_curses_refresh(window)
        }
        return try body()
    }

    /// Leaves curses mode and gives the terminal back as it was. Safe to call twice.
    public func restore() {
        guard !restored else { return }
        restored = true
        podq_curses_cursor(1)
        leaveAtBottom()
        podq_curses_end()
    }

    /// Moves the cursor to the start of the bottom line, where curses leaves curses mode: curses does
    /// not know where the frames left it (its own `mvcur` goes through C's `stdout`, which is flushed
    /// only at exit, after podq's last words).
    private func leaveAtBottom() {
        guard let encoder else { return }
        write(encoder.move(0, Int(podq_curses_height(window)) - 1))
    }
}

/// Why the terminal UI could not start.
public enum TerminalError: Error, LocalizedError, Sendable {
    /// Standard input or output is not a terminal (a pipe, cron).
    case notATerminal
    /// curses refused the terminal type.
    case cannotStart(term: String?)
    /// ncursesw (libncursesw.so.6), which the TUI opens when it starts, cannot be loaded.
    case noCurses(reason: String)

    public var errorDescription: String? {
        switch self {
        case .notATerminal:
            "The TUI needs a terminal. For scripts and cron use `podq download` (it runs the same queue headless)."
        case .cannotStart(let term):
            "Cannot start the TUI on this terminal (TERM=\(term ?? "unset")). Set TERM to your terminal's type, e.g. TERM=xterm-256color."
        case .noCurses(let reason):
            "The TUI needs ncursesw, which cannot be loaded (\(reason)). Install it (Debian: sudo apt-get install libncursesw6), or use `podq download` without the TUI."
        }
    }
}

extension CursesScreen: TerminalScreen {}
