/// The text style of a cell; the backend maps it to attributes and colours.
public enum CellStyle: Sendable, Hashable {
    case normal, dim, bold, selected, header, success, failure, accent, barFilled, barEmpty
}

/// A rectangle of cells: what a frame is before a backend draws it. Wide characters take two cells,
/// the second of which holds `nil`.
public struct Grid: Sendable, Equatable {
    public struct Cell: Sendable, Equatable {
        public var character: Character?
        public var style: CellStyle
    }

    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: Cell(character: " ", style: .normal), count: self.width * self.height)
    }

    public subscript(x: Int, y: Int) -> Cell { cells[y * width + x] }

    /// A bold box `inner` cells wide inside its frame, from row `top` to row `bottom`, its inside
    /// cleared: the panes over the table (detail, directory, transcript, help) are drawn in one.
    mutating func box(x: Int = 0, top: Int, bottom: Int, inner: Int) {
        let blank = String(repeating: " ", count: inner)
        put("┌" + String(repeating: "─", count: inner) + "┐", x: x, y: top, style: .bold)
        for y in (top + 1)..<bottom { put("│" + blank + "│", x: x, y: y, style: .bold) }
        put("└" + String(repeating: "─", count: inner) + "┘", x: x, y: bottom, style: .bold)
    }

    /// Writes `text` at (`x`, `y`), clipped to the row; returns the column after it.
    @discardableResult
    public mutating func put(_ text: String, x: Int, y: Int, style: CellStyle = .normal) -> Int {
        guard y >= 0, y < height else { return x }
        var col = x
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            // Printable ASCII (most cells of a frame): one cell per byte, no Character breaking.
            for byte in text.utf8 {
                if col >= width { break }
                if col >= 0 { cells[y * width + col] = Cell(character: Character(Unicode.Scalar(byte)), style: style) }
                col += 1
            }
            return col
        }
        if text.unicodeScalars.allSatisfy(DisplayWidth.isSimple) {
            // Each scalar one character of one cell (a bar's blocks, accented Latin, dashes).
            for scalar in text.unicodeScalars {
                if col >= width { break }
                if col >= 0 { cells[y * width + col] = Cell(character: Character(scalar), style: style) }
                col += 1
            }
            return col
        }
        for ch in text {
            let w = DisplayWidth.of(ch)
            if w == 0 { continue }
            if col + w > width { break }
            if col >= 0 {
                cells[y * width + col] = Cell(character: ch, style: style)
                if w == 2 { cells[y * width + col + 1] = Cell(character: nil, style: style) }
            }
            col += w
        }
        return col
    }

    /// Sets the style of `count` cells from (`x`, `y`).
    public mutating func style(x: Int, y: Int, count: Int, _ style: CellStyle) {
        guard y >= 0, y < height else { return }
        for col in max(0, x)..<min(width, x + count) { cells[y * width + col].style = style }
    }

    /// The rows as text, trailing spaces removed: what render tests compare.
    public var text: String {
        (0..<height).map { y in
            var line = ""
            for x in 0..<width { if let ch = self[x, y].character { line.append(ch) } }
            while line.last == " " { line.removeLast() }
            return line
        }.joined(separator: "\n")
    }
}
