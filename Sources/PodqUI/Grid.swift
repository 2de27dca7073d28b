/// The text style of a cell; the backend maps it to attributes and colours.
public enum CellStyle: Sendable, Hashable {
    case normal, dim, bold, selected, header, success, failure, accent, barFilled, barEmpty
}

/// A rectangle of cells: what a frame is before a backend draws it. Wide characters take two cells,
/// the second of which holds `nil`.
///
/// A cell is stored as a number, not a `Character`: a frame is thousands of cells, written and then
/// compared with the frame before, twelve times a second. Most cells hold one Unicode scalar (its
/// value is the code); a character of several scalars (a flag, an emoji with its selector, a letter
/// with a combining accent) is kept aside in `clusters` and its code points there.
public struct Grid: Sendable {
    /// A cell as a reader sees it.
    public struct Cell: Sendable, Equatable {
        public var character: Character?
        public var style: CellStyle
    }

    /// What a cell holds, for a backend that draws it.
    public enum Content: Sendable, Equatable {
        /// One Unicode scalar: most cells.
        case scalar(Unicode.Scalar)
        /// A character of several scalars.
        case cluster(Character)
        /// The second cell of a wide character: nothing to draw.
        case continuation
    }

    /// A stored cell: `code` is a scalar's value, ``continuationCode``, or ``clusterBit`` plus an index
    /// into `clusters`.
    struct Stored: Sendable, Equatable {
        var code: UInt32
        var style: CellStyle
    }

    static let continuationCode: UInt32 = 0x8000_0000
    static let clusterBit: UInt32 = 0x4000_0000

    public let width: Int
    public let height: Int
    private(set) var stored: [Stored]
    private(set) var clusters: [Character] = []

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        stored = Array(repeating: Stored(code: 0x20, style: .normal), count: self.width * self.height)
    }

    public subscript(x: Int, y: Int) -> Cell {
        let cell = stored[y * width + x]
        switch content(of: cell.code) {
        case .scalar(let scalar): return Cell(character: Character(scalar), style: cell.style)
        case .cluster(let character): return Cell(character: character, style: cell.style)
        case .continuation: return Cell(character: nil, style: cell.style)
        }
    }

    /// What the cell at (`x`, `y`) holds.
    public func content(x: Int, y: Int) -> Content { content(of: stored[y * width + x].code) }

    /// The style of the cell at (`x`, `y`).
    public func style(x: Int, y: Int) -> CellStyle { stored[y * width + x].style }

    /// Whether the cell at (`x`, `y`) shows the same as that cell of `other` (a grid of the same size).
    public func same(x: Int, y: Int, as other: Grid) -> Bool {
        let a = stored[y * width + x]
        let b = other.stored[y * other.width + x]
        if a == b { return a.code & Self.clusterBit == 0 || clusters[index(a.code)] == other.clusters[index(b.code)] }
        guard a.style == b.style, a.code & b.code & Self.clusterBit != 0 else { return false }
        return clusters[index(a.code)] == other.clusters[index(b.code)]
    }

    private func index(_ code: UInt32) -> Int { Int(code & ~Self.clusterBit) }

    private func content(of code: UInt32) -> Content {
        if code == Self.continuationCode { return .continuation }
        if code & Self.clusterBit != 0 { return .cluster(clusters[index(code)]) }
        return .scalar(Unicode.Scalar(code).unsafelyUnwrapped)
    }

    private mutating func set(_ character: Character, at i: Int, style: CellStyle) {
        let scalars = character.unicodeScalars
        if let first = scalars.first, scalars.index(after: scalars.startIndex) == scalars.endIndex {
            stored[i] = Stored(code: first.value, style: style)
        } else {
            stored[i] = Stored(code: Self.clusterBit | UInt32(clusters.count), style: style)
            clusters.append(character)
        }
    }

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
                if col >= 0 { stored[y * width + col] = Stored(code: UInt32(byte), style: style) }
                col += 1
            }
            return col
        }
        if text.unicodeScalars.allSatisfy(DisplayWidth.isSimple) {
            // Each scalar one character of one cell (a bar's blocks, accented Latin, dashes).
            for scalar in text.unicodeScalars {
                if col >= width { break }
                if col >= 0 { stored[y * width + col] = Stored(code: scalar.value, style: style) }
                col += 1
            }
            return col
        }
        for ch in text {
            let w = DisplayWidth.of(ch)
            if w == 0 { continue }
            if col + w > width { break }
            if col >= 0 {
                set(ch, at: y * width + col, style: style)
                if w == 2 { stored[y * width + col + 1] = Stored(code: Self.continuationCode, style: style) }
            }
            col += w
        }
        return col
    }

    /// Writes `text` at (`x`, `y`) in exactly `cells` cells: cut with an ellipsis when it is wider,
    /// followed by spaces when it is narrower (as `put(DisplayWidth.pad(text, to: cells), …)`, without
    /// building the padded text); returns the column after them.
    @discardableResult
    public mutating func put(_ text: String, x: Int, y: Int, style: CellStyle = .normal, cells: Int) -> Int {
        guard cells > 0 else { return x }
        let end = x + cells
        let shown = DisplayWidth.of(text) <= cells ? text : DisplayWidth.truncate(text, to: cells)
        var col = put(shown, x: x, y: y, style: style)
        // Text cut by the right edge (a wide character that did not fit in the last cell) gets no
        // padding after it, as the padded text would have stopped there too.
        guard y >= 0, y < height, x + DisplayWidth.of(shown) <= self.width else { return end }
        while col < end {
            if col >= self.width { break }
            if col >= 0 { stored[y * self.width + col] = Stored(code: 0x20, style: style) }
            col += 1
        }
        return end
    }

    /// Sets the style of `count` cells from (`x`, `y`).
    public mutating func style(x: Int, y: Int, count: Int, _ style: CellStyle) {
        guard y >= 0, y < height else { return }
        for col in max(0, x)..<min(width, x + count) { stored[y * width + col].style = style }
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

extension Grid: Equatable {
    /// Grids are equal when they are the same size and show the same in every cell.
    public static func == (lhs: Grid, rhs: Grid) -> Bool {
        guard lhs.width == rhs.width, lhs.height == rhs.height else { return false }
        for y in 0..<lhs.height {
            for x in 0..<lhs.width where !lhs.same(x: x, y: y, as: rhs) { return false }
        }
        return true
    }
}
