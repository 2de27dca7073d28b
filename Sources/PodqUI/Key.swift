/// A key press, decoded from ncurses' `wget_wch` result.
public enum Key: Sendable, Equatable {
    case character(Character)
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, tab, backspace, escape
    case resize
    case function(Int)
    /// A click (button 1) or the wheel, at a cell.
    case mouse(MouseAction, x: Int, y: Int)

    /// What the mouse did.
    public enum MouseAction: Sendable, Equatable {
        case click, wheelUp, wheelDown
    }

    /// Decodes what `wget_wch` returned: `isKeyCode` is true for `KEY_CODE_YES`.
    public static func decode(_ value: UInt32, isKeyCode: Bool) -> Key? {
        if isKeyCode {
            switch value {
            case 0o403: return .up  // KEY_UP
            case 0o402: return .down  // KEY_DOWN
            case 0o404: return .left
            case 0o405: return .right
            case 0o523: return .pageUp  // KEY_PPAGE
            case 0o522: return .pageDown  // KEY_NPAGE
            case 0o406: return .home
            case 0o550: return .end
            case 0o407: return .backspace
            case 0o527: return .enter  // KEY_ENTER
            case 0o632: return .resize  // KEY_RESIZE
            case 0o411...0o474: return .function(Int(value) - 0o410)  // KEY_F(1)…
            default: return nil
            }
        }
        switch value {
        case 0x0A, 0x0D: return .enter
        case 0x09: return .tab
        case 0x08, 0x7F: return .backspace
        case 0x1B: return .escape
        case 0x00..<0x20: return nil
        default:
            guard let scalar = Unicode.Scalar(value) else { return nil }
            return .character(Character(scalar))
        }
    }
}
