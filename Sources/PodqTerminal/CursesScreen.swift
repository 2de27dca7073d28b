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
    private var colorPairs: [CellStyle: Int16] = [:]
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
    public init(mouse: Bool = true) throws(TerminalError) {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw .notATerminal }
        setlocale(LC_ALL, "")
        if podq_locale_is_utf8() == 0 { setlocale(LC_CTYPE, "C.UTF-8") }
        guard let window = podq_start_screen() else {
            throw .cannotStart(term: ProcessInfo.processInfo.environment["TERM"])
        }
        self.window = window
        cbreak()
        noecho()
        nonl()
        keypad(window, true)
        curs_set(0)
        set_escdelay(25)
        // Every frame reaches the terminal whole: ncurses' default cuts an update short while keys
        // are waiting, and the frame of the last key of a burst could then stay unsent.
        typeahead(-1)
        podq_mouse(mouse ? 1 : 0)
        wtimeout(window, waitTime)
        if ProcessInfo.processInfo.environment["NO_COLOR"].map({ !$0.isEmpty }) != true, has_colors() {
            start_color()
            use_default_colors()
            setupColors()
        }
    }

    /// The size of the terminal now.
    public var size: (width: Int, height: Int) { (Int(getmaxx(window)), Int(getmaxy(window))) }

    /// Draws the cells of `grid` that changed since the last frame and refreshes the terminal.
    public func draw(_ grid: Grid) {
        let previous = shown?.width == grid.width && shown?.height == grid.height ? shown : nil
        if previous == nil { werase(window) }
        for y in 0..<grid.height {
            for x in 0..<grid.width {
                let cell = grid[x, y]
                if let previous, previous[x, y] == cell { continue }
                guard let ch = cell.character, let scalar = ch.unicodeScalars.first else { continue }
                let (attrs, pair) = Self.attributes(for: cell.style, pairs: colorPairs)
                let scalars = ch.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
                if scalars.count == 2, ch.unicodeScalars.allSatisfy({ (0x1F1E6...0x1F1FF).contains($0.value) }), x + 1 < grid.width {
                    // A flag: its two regional indicators in its two cells, which the terminal joins.
                    _ = podq_put_wchar(window, Int32(y), Int32(x), scalars[0], attrs, pair)
                    _ = podq_put_wchar(window, Int32(y), Int32(x + 1), scalars[1], attrs, pair)
                    continue
                }
                _ = scalars.withUnsafeBufferPointer {
                    podq_put_cluster(window, Int32(y), Int32(x), $0.baseAddress, Int32($0.count), attrs, pair)
                }
                // Where the C library counts a character narrower than the layout does (emoji with
                // U+FE0F), fill the cell the layout reserved so nothing stale shows through.
                if DisplayWidth.of(ch) == 2, wcwidth(wchar_t(bitPattern: scalar.value)) == 1, x + 1 < grid.width {
                    _ = podq_put_wchar(window, Int32(y), Int32(x + 1), wchar_t(bitPattern: 0x20), attrs, pair)
                }
            }
        }
        shown = grid
        wrefresh(window)
    }

    /// Forgets what is on screen, so the next ``draw(_:)`` repaints everything (after a resize).
    public func invalidate() {
        shown = nil
    }

    /// Waits up to `milliseconds` (the frame time, 50 ms, by default) for a key.
    public func readKey(waiting milliseconds: Int32 = 50) -> Key? {
        if milliseconds != waitTime {
            waitTime = milliseconds
            wtimeout(window, milliseconds)
        }
        var value: wint_t = 0
        let rc = wget_wch(window, &value)
        if rc == podq_err() {
            // No key: the wait ended, or the terminal is gone (then every read fails at once).
            if podq_terminal_hung_up(STDIN_FILENO) == 1 { isHungUp = true }
            return nil
        }
        if rc == KEY_CODE_YES, Int32(value) == podq_key_mouse() {
            var x: Int32 = 0, y: Int32 = 0
            switch podq_read_mouse(&x, &y) {
            case 1: return .mouse(.click, x: Int(x), y: Int(y))
            case 2: return .mouse(.wheelUp, x: Int(x), y: Int(y))
            case 3: return .mouse(.wheelDown, x: Int(x), y: Int(y))
            default: return nil
            }
        }
        return Key.decode(UInt32(value), isKeyCode: rc == KEY_CODE_YES)
    }

    /// Gives the terminal to another program (a player) while `body` runs: curses mode is left, the
    /// screen restored, and afterwards curses mode comes back and the next frame repaints everything.
    public func handOver<T>(_ body: () throws -> T) rethrows -> T {
        def_prog_mode()
        curs_set(1)
        endwin()
        defer {
            reset_prog_mode()
            curs_set(0)
            shown = nil
            werase(window)
            wrefresh(window)
        }
        return try body()
    }

    /// Leaves curses mode and gives the terminal back as it was. Safe to call twice.
    public func restore() {
        guard !restored else { return }
        restored = true
        curs_set(1)
        endwin()
    }

    private func setupColors() {
        let table: [(CellStyle, Int16)] = [
            (.success, Int16(COLOR_GREEN)), (.failure, Int16(COLOR_RED)),
            (.accent, Int16(COLOR_CYAN)), (.barFilled, Int16(COLOR_CYAN)),
        ]
        for (index, entry) in table.enumerated() {
            let pair = Int16(index + 1)
            init_pair(pair, entry.1, -1)
            colorPairs[entry.0] = pair
        }
    }

    /// The curses attributes and colour pair of a style.
    nonisolated static func attributes(for style: CellStyle, pairs: [CellStyle: Int16]) -> (attr_t, Int16) {
        let pair = pairs[style] ?? 0
        switch style {
        case .normal, .barEmpty: return (podq_a_normal(), pair)
        case .dim: return (podq_a_dim(), pair)
        case .bold, .header: return (podq_a_bold(), pair)
        case .selected: return (podq_a_reverse(), pair)
        case .success, .failure, .accent, .barFilled: return (pairs[style] == nil ? podq_a_bold() : podq_a_normal(), pair)
        }
    }
}

/// Why the terminal UI could not start.
public enum TerminalError: Error, LocalizedError, Sendable {
    /// Standard input or output is not a terminal (a pipe, cron).
    case notATerminal
    /// curses refused the terminal type.
    case cannotStart(term: String?)

    public var errorDescription: String? {
        switch self {
        case .notATerminal:
            "The TUI needs a terminal. For scripts and cron use `podq download` (it runs the same queue headless)."
        case .cannotStart(let term):
            "Cannot start the TUI on this terminal (TERM=\(term ?? "unset")). Set TERM to your terminal's type, e.g. TERM=xterm-256color."
        }
    }
}

extension CursesScreen: TerminalScreen {}
