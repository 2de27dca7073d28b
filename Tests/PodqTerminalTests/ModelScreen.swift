import PodqUI

@testable import PodqTerminal

/// A terminal in miniature for the encoder's tests: it understands what ``FrameEncoder`` writes with
/// ``ModelScreen/encoder(lastCellScrolls:colors:)``'s sequences (ECMA-48 `cup`, SGR 0, 1, 2, 7 and 3x, the
/// clear) and keeps each cell's text and attributes. A written scalar takes the cell under the cursor
/// and moves it one to the right; a zero-width one or the second of a flag joins the cell written
/// last, unless the cursor moved since (the encoder moves the cursor itself after anything wider).
struct ModelScreen {
    struct Cell: Equatable {
        var text = " "
        var attributes: Set<Int> = []
    }

    let width: Int
    let height: Int
    var cells: [Cell]
    private var x = 0
    private var y = 0
    private var attributes: Set<Int> = []
    private var last: (x: Int, y: Int)?

    init(width: Int, height: Int, filler: String = " ") {
        self.width = width
        self.height = height
        cells = Array(repeating: Cell(text: filler, attributes: [9]), count: width * height)
        // The cursor where a program before left it, not at the top left: the encoder must not assume.
        (x, y) = (width - 1, height - 1)
    }

    subscript(x: Int, y: Int) -> Cell { cells[y * width + x] }

    /// The encoder with this model's sequences.
    static func encoder(lastCellScrolls: Bool = false, colors: Bool = true, clears: Bool = true) -> FrameEncoder {
        func csi(_ text: String) -> [UInt8] { Array("\u{1B}[\(text)".utf8) }
        return FrameEncoder(
            styles: FrameEncoder.styles(reset: csi("0m"), bold: csi("1m"), dim: csi("2m"), reverse: csi("7m")) { color in
                colors ? csi("3\(color)m") : nil
            },
            reset: csi("0m"), clear: clears ? csi("H") + csi("2J") : [], move: FrameEncoder.ecmaMove, lastCellScrolls: lastCellScrolls,
            libraryWidth: { $0.value == 0x2764 || $0.value == 0x23 ? 1 : 2 })
    }

    /// The attributes a style shows with the model's sequences.
    static func attributes(_ style: CellStyle, colors: Bool = true) -> Set<Int> {
        switch style {
        case .normal, .barEmpty: []
        case .dim: [2]
        case .bold, .header: [1]
        case .selected: [7]
        case .success: colors ? [32] : [1]
        case .failure: colors ? [31] : [1]
        case .accent, .barFilled: colors ? [36] : [1]
        }
    }

    mutating func apply(_ bytes: [UInt8]) {
        var i = 0
        var text: [UInt8] = []
        func flush() {
            for scalar in String(decoding: text, as: UTF8.self).unicodeScalars { put(scalar) }
            text.removeAll()
        }
        while i < bytes.count {
            guard bytes[i] == 0x1B else {
                text.append(bytes[i])
                i += 1
                continue
            }
            flush()
            precondition(bytes[i + 1] == 0x5B, "only CSI sequences")
            var j = i + 2
            while !(0x40...0x7E).contains(bytes[j]) { j += 1 }
            let parameters = String(decoding: bytes[(i + 2)..<j], as: UTF8.self).split(separator: ";").map { Int($0)! }
            switch bytes[j] {
            case 0x48:  // H
                (y, x) = parameters.isEmpty ? (0, 0) : (parameters[0] - 1, parameters[1] - 1)
                last = nil
            case 0x4A:  // J
                cells = Array(repeating: Cell(), count: width * height)
            case 0x6D:  // m
                for p in parameters { if p == 0 { attributes = [] } else { attributes.insert(p) } }
            default: preconditionFailure("unexpected sequence")
            }
            i = j + 1
        }
        flush()
    }

    private mutating func put(_ scalar: Unicode.Scalar) {
        if let last {
            let previous = cells[last.y * width + last.x].text.unicodeScalars
            let joins =
                DisplayWidth.of(scalar) == 0
                || (previous.count == 1 && (0x1F1E6...0x1F1FF).contains(previous.first!.value) && (0x1F1E6...0x1F1FF).contains(scalar.value))
            if joins {
                cells[last.y * width + last.x].text.unicodeScalars.append(scalar)
                return
            }
        }
        precondition(x < width && y < height, "written off the screen at \(x),\(y)")
        cells[y * width + x] = Cell(text: String(scalar), attributes: attributes)
        last = (x, y)
        x += 1
    }
}
