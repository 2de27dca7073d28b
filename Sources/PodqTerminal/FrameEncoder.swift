import PodqUI

/// Turns a frame into the bytes that draw it on the terminal: the cells that changed since the frame
/// before, each run of them after one cursor move, each change of style as one attribute sequence.
/// Pure: the terminal's sequences come in, bytes come out (FrameEncoderTests replays them on a model
/// screen).
///
/// ncurses drew the frames before. It spent a third of the TUI's main thread on comparing again cells
/// podq had compared with the frame before, and on working out, for every cursor move, the cheapest of
/// five ways to move, each a `tparm` of a capability (docs/PERFORMANCE.md, "Lean, fifth step").
struct FrameEncoder {
    /// The sequence that puts the terminal in a style (after resetting every attribute).
    var styles: [CellStyle: [UInt8]]
    /// Resets every attribute (`sgr0`).
    var reset: [UInt8]
    /// Clears the screen (`clear`).
    var clear: [UInt8]
    /// Moves the cursor to column x, row y, both from 0 (`cup`).
    var move: (_ x: Int, _ y: Int) -> [UInt8]
    /// Whether writing the last cell of the screen would scroll it (`am` without `xenl`): then that
    /// cell is left alone.
    var lastCellScrolls = false
    /// The width the C library gives a scalar (`wcwidth`): where it is 1 and the layout gave 2 (emoji
    /// with U+FE0F), the second cell is cleared so nothing stale shows through.
    var libraryWidth: (Unicode.Scalar) -> Int32

    /// The bytes that turn a screen showing `previous` (nil: anything) into one showing `grid`.
    func encode(_ grid: Grid, since previous: Grid?) -> [UInt8] {
        // Decided once, out of the loop: an optional grid looked at per cell is copied per cell (two
        // reference counts up and down), which cost more than the rest of the frame.
        let repaint = previous?.width != grid.width || previous?.height != grid.height
        let before = repaint ? grid : previous.unsafelyUnwrapped
        var out: [UInt8] = []
        // Where the terminal's cursor is, when known, and the style it draws in.
        var cursor: (x: Int, y: Int)?
        var current: CellStyle?
        if repaint {
            out += reset
            out += clear
            // `clear` leaves the cursor at the top left (without it, where it is is not known).
            (cursor, current) = (clear.isEmpty ? nil : (0, 0), .normal)
        }
        for y in 0..<grid.height {
            for x in 0..<grid.width {
                if lastCellScrolls, y == grid.height - 1, x == grid.width - 1 { continue }
                // A cell is written again when it is unchanged but the one after it changed and it is
                // wide: its second half may be gone (written over), and it then shows as a space.
                if !repaint, grid.same(x: x, y: y, as: before),
                    x + 1 >= grid.width || grid.same(x: x + 1, y: y, as: before) || !Self.isWide(grid.content(x: x, y: y))
                {
                    continue
                }
                var content = grid.content(x: x, y: y)
                // A wide character whose second cell was written over (the grid keeps both halves as
                // they were put) cannot show in one cell: a space does, as curses showed it.
                if Self.isWide(content), x + 1 >= grid.width || grid.content(x: x + 1, y: y) != .continuation { content = .scalar(" ") }
                let style = grid.style(x: x, y: y)
                // The cleared screen shows blanks already (a terminal without `clear` is written whole).
                if repaint, !clear.isEmpty, content == .scalar(" "), style == .normal { continue }
                if content == .continuation { continue }
                if let at = cursor, at.y == y, at.x < x, x - at.x <= Self.gapLimit, rewrite(grid, y: y, from: at.x, to: x, style: current, into: &out) {
                    // A short gap of unchanged cells is written again: fewer bytes than a move.
                } else if cursor?.x != x || cursor?.y != y {
                    out += move(x, y)
                }
                if style != current {
                    out += styles[style] ?? reset
                    current = style
                }
                let first: Unicode.Scalar
                let wide: Bool
                switch content {
                case .continuation: continue
                case .scalar(let scalar):
                    // A lone mark or selector would join the cell before it: a space carries it.
                    if scalar.value >= 0x300, DisplayWidth.of(scalar) == 0 { out.append(0x20) }
                    Self.append(scalar, to: &out)
                    first = scalar
                    wide = scalar.value >= 0x1100 && DisplayWidth.of(scalar) == 2
                    // One cell on every terminal: the cursor is on the next one (unless at the edge,
                    // where terminals differ).
                    cursor = DisplayWidth.isSimple(scalar) && x + 1 < grid.width ? (x + 1, y) : nil
                case .cluster(let character):
                    // So would a cluster that starts with one (text cut inside a character).
                    if DisplayWidth.of(character.unicodeScalars.first!) == 0 { out.append(0x20) }
                    for scalar in Self.cell(character) { Self.append(scalar, to: &out) }
                    first = character.unicodeScalars.first!
                    wide = DisplayWidth.of(character) == 2 && !Self.isFlag(character)
                    // Terminals disagree on the width of clusters: the next cell is moved to.
                    cursor = nil
                }
                if wide, x + 1 < grid.width, libraryWidth(first) == 1 {
                    out += move(x + 1, y)
                    out.append(0x20)
                    cursor = nil
                }
            }
        }
        if !out.isEmpty { out += reset }
        return out
    }

    /// Whether `content` takes two cells (its second is the grid's continuation after it).
    static func isWide(_ content: Grid.Content) -> Bool {
        switch content {
        case .continuation: false
        case .scalar(let scalar): scalar.value >= 0x1100 && DisplayWidth.of(scalar) == 2
        case .cluster(let character): DisplayWidth.of(character) == 2
        }
    }

    /// The most unchanged cells written again, rather than moved over.
    static let gapLimit = 4

    /// Writes the cells of row `y` from column `from` up to `to` again, when all are printable ASCII in
    /// `style` (what the cursor moves over without a move); false, writing nothing, otherwise.
    private func rewrite(_ grid: Grid, y: Int, from: Int, to: Int, style: CellStyle?, into out: inout [UInt8]) -> Bool {
        for x in from..<to {
            guard grid.style(x: x, y: y) == style, case .scalar(let scalar) = grid.content(x: x, y: y), (0x20..<0x7F).contains(scalar.value) else {
                return false
            }
        }
        for x in from..<to {
            if case .scalar(let scalar) = grid.content(x: x, y: y) { out.append(UInt8(scalar.value)) }
        }
        return true
    }

    /// The sequence of each style, from the terminal's: `reset` (`sgr0`) first, then `bold`, `dim`,
    /// `reverse` or a foreground colour (`setaf`; `color` gives nil without colours, with `NO_COLOR` or
    /// on a terminal without them: the coloured states are bold then, so they still stand out).
    static func styles(
        reset: [UInt8], bold: [UInt8], dim: [UInt8], reverse: [UInt8], color: (Int32) -> [UInt8]?
    ) -> [CellStyle: [UInt8]] {
        // curses' colour numbers (COLOR_GREEN, COLOR_RED, COLOR_CYAN).
        let (green, red, cyan): (Int32, Int32, Int32) = (2, 1, 6)
        var styles: [CellStyle: [UInt8]] = [:]
        for style in [CellStyle.normal, .dim, .bold, .selected, .header, .success, .failure, .accent, .barFilled, .barEmpty] {
            switch style {
            case .normal, .barEmpty: styles[style] = reset
            case .dim: styles[style] = reset + dim
            case .bold, .header: styles[style] = reset + bold
            case .selected: styles[style] = reset + reverse
            case .success: styles[style] = reset + (color(green) ?? bold)
            case .failure: styles[style] = reset + (color(red) ?? bold)
            case .accent, .barFilled: styles[style] = reset + (color(cyan) ?? bold)
            }
        }
        return styles
    }

    /// What of a cluster one cell shows: its first scalar and the zero-width ones that follow (an
    /// accent, a selector, a joiner), at most five as in a curses cell; a flag whole. A joined emoji
    /// sequence shows its first emoji, in the two cells the layout gave it, on every terminal (some
    /// would draw the whole sequence four cells wide, over the text after it).
    static func cell(_ character: Character) -> [Unicode.Scalar] {
        let scalars = Array(character.unicodeScalars)
        if isFlag(character) { return scalars }
        var kept = [scalars[0]]
        for scalar in scalars.dropFirst() {
            if kept.count == 5 || DisplayWidth.of(scalar) != 0 { break }
            kept.append(scalar)
        }
        return kept
    }

    /// A flag: two regional indicators, which the terminal joins into one picture.
    static func isFlag(_ character: Character) -> Bool {
        character.unicodeScalars.count == 2 && character.unicodeScalars.allSatisfy { (0x1F1E6...0x1F1FF).contains($0.value) }
    }

    static func append(_ scalar: Unicode.Scalar, to out: inout [UInt8]) {
        let v = scalar.value
        if v < 0x80 {
            out.append(UInt8(v))
        } else {
            UTF8.encode(scalar) { out.append($0) }
        }
    }

    /// A capability's bytes without its padding (`$<5>`, `$<2*/>`: delays for terminals of the 1980s,
    /// which `tputs` would wait out and which must not reach the screen as text).
    static func unpadded(_ capability: String) -> [UInt8] {
        var out: [UInt8] = []
        let bytes = Array(capability.utf8)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "$"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "<"),
                let close = bytes[(i + 2)...].firstIndex(of: UInt8(ascii: ">")),
                bytes[(i + 2)..<close].allSatisfy({ (0x30...0x39).contains($0) || Array(".*/".utf8).contains($0) })
            {
                i = close + 1
                continue
            }
            out.append(bytes[i])
            i += 1
        }
        return out
    }

    /// `cup` for the terminals that speak ECMA-48 (`ESC [ row ; column H`, from 1), without `tparm`.
    static func ecmaMove(_ x: Int, _ y: Int) -> [UInt8] {
        var out: [UInt8] = [0x1B, 0x5B]
        out += Array(String(y + 1).utf8)
        out.append(0x3B)
        out += Array(String(x + 1).utf8)
        out.append(0x48)
        return out
    }

    /// The `cup` capability that ``ecmaMove(_:_:)`` writes.
    static let ecmaCup = "\u{1B}[%i%p1%d;%p2%dH"
}
