import PodqUI
import XCTest

/// The grid stores cells as numbers (a scalar, or an index into its clusters): what a reader, a
/// backend and a comparison see stays what the characters were.
final class GridTests: XCTestCase {
    private let pool: [UInt32] = [
        0x61, 0x20, 0x7E, 0xE9, 0x2014, 0x2026, 0x2588, 0x301, 0x200D, 0xFE0F, 0x1F1EF, 0x1F1F5, 0x1F3A7, 0x30DD,
        0xAC00, 0x2764, 0x23, 0x20E3, 0x9,
    ]

    private func randomText(_ random: inout some RandomNumberGenerator) -> String {
        var text = ""
        for _ in 0..<Int.random(in: 0...14, using: &random) {
            text.unicodeScalars.append(Unicode.Scalar(pool.randomElement(using: &random)!)!)
        }
        return text
    }

    /// `put(_:x:y:style:cells:)` lays out what `put(DisplayWidth.pad(text, to: cells))` did, for random
    /// text of every kind of scalar, at random columns (some off the left or right edge) and widths.
    func testPuttingInCellsIsPuttingThePaddedText() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let text = randomText(&random)
            let x = Int.random(in: -3...25, using: &random)
            let cells = Int.random(in: 0...16, using: &random)
            var padded = Grid(width: 24, height: 2)
            var direct = padded
            padded.put(DisplayWidth.pad(text, to: cells), x: x, y: 1, style: .dim)
            let end = direct.put(text, x: x, y: 1, style: .dim, cells: cells)
            XCTAssertEqual(direct, padded, "\(text.debugDescription) at \(x) in \(cells)")
            XCTAssertTrue((0..<24).allSatisfy { direct.style(x: $0, y: 1) == padded.style(x: $0, y: 1) }, "\(text.debugDescription) at \(x) in \(cells)")
            XCTAssertEqual(end, x + cells)
            if direct != padded { return }
        }
    }

    /// Grids that show the same are equal whatever order their clusters were written in; a cell that
    /// changes (its character, a cluster for another, its style) is no longer the same.
    func testSameAndEqualCompareWhatIsShown() {
        var a = Grid(width: 10, height: 1)
        var b = a
        a.put("🇯🇵", x: 0, y: 0)
        a.put("e\u{301}", x: 4, y: 0)
        b.put("e\u{301}", x: 4, y: 0)
        b.put("🇯🇵", x: 0, y: 0)
        XCTAssertEqual(a, b)
        XCTAssertTrue((0..<10).allSatisfy { a.same(x: $0, y: 0, as: b) })
        XCTAssertEqual(a.content(x: 0, y: 0), .cluster("🇯🇵"))
        XCTAssertEqual(a.content(x: 1, y: 0), .continuation)
        XCTAssertEqual(a.content(x: 3, y: 0), .scalar(" "))
        var c = b
        c.put("a\u{301}", x: 4, y: 0)
        XCTAssertFalse(c.same(x: 4, y: 0, as: a))
        XCTAssertNotEqual(c, a)
        var d = b
        d.style(x: 4, y: 0, count: 1, .selected)
        XCTAssertFalse(d.same(x: 4, y: 0, as: a))
        XCTAssertEqual(d.style(x: 4, y: 0), .selected)
        var e = a
        e.put("x", x: 0, y: 0)
        XCTAssertFalse(e.same(x: 0, y: 0, as: a))
        XCTAssertEqual(e[0, 0].character, "x")
    }

    /// For random text, each cell's content is the character the reader sees there.
    func testContentIsTheCharacter() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            var grid = Grid(width: 20, height: 1)
            grid.put(randomText(&random), x: Int.random(in: -2...6, using: &random), y: 0)
            for x in 0..<20 {
                switch grid.content(x: x, y: 0) {
                case .scalar(let scalar): XCTAssertEqual(grid[x, 0].character, Character(scalar))
                case .cluster(let character):
                    XCTAssertEqual(grid[x, 0].character, character)
                    XCTAssertGreaterThan(character.unicodeScalars.count, 1)
                case .continuation: XCTAssertNil(grid[x, 0].character)
                }
            }
        }
    }
}
