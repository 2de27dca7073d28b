import PodqUI
import XCTest

final class KeyTests: XCTestCase {
    func testDecodesKeyCodesAndCharacters() {
        XCTAssertEqual(Key.decode(0o403, isKeyCode: true), .up)
        XCTAssertEqual(Key.decode(0o402, isKeyCode: true), .down)
        XCTAssertEqual(Key.decode(0o632, isKeyCode: true), .resize)
        XCTAssertEqual(Key.decode(0o411, isKeyCode: true), .function(1))
        XCTAssertEqual(Key.decode(UInt32(UInt8(ascii: "c")), isKeyCode: false), .character("c"))
        XCTAssertEqual(Key.decode(0x3042, isKeyCode: false), .character("あ"))
        XCTAssertEqual(Key.decode(0x0D, isKeyCode: false), .enter)
        XCTAssertEqual(Key.decode(0x1B, isKeyCode: false), .escape)
        XCTAssertNil(Key.decode(0x01, isKeyCode: false), "other control keys are ignored")
    }
}
