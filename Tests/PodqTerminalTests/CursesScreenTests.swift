import PodqUI
import XCTest

@testable import PodqTerminal

/// The style → attribute table (drawing itself is covered end to end in tmux).
final class CursesScreenTests: XCTestCase {
    func testWithoutColoursStatesStayVisibleInBold() {
        let (attrs, pair) = CursesScreen.attributes(for: .failure, pairs: [:])
        XCTAssertEqual(pair, 0, "NO_COLOR: no colour pair")
        XCTAssertNotEqual(attrs & CursesScreen.attributes(for: .bold, pairs: [:]).0, 0, "failures still stand out")
    }

    func testTheSelectionStandsOutWithoutColour() {
        XCTAssertNotEqual(CursesScreen.attributes(for: .selected, pairs: [:]).0, CursesScreen.attributes(for: .normal, pairs: [:]).0)
    }

    func testWithColoursAStyleUsesItsPair() {
        let (_, pair) = CursesScreen.attributes(for: .success, pairs: [.success: 3])
        XCTAssertEqual(pair, 3)
    }
}
