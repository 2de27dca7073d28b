extension String {
    /// The string without leading and trailing ASCII whitespace (space, tab, CR, LF). Much faster than
    /// Foundation's `trimmingCharacters(in:)` on corelibs, which bridges through NSString: the feed
    /// parser calls it for every element.
    public var trimmingASCIIWhitespace: String {
        let utf8 = self.utf8
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }
        guard let first = utf8.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = utf8.lastIndex(where: { !isSpace($0) })!
        if first == utf8.startIndex && last == utf8.index(before: utf8.endIndex) { return self }
        return String(self[first...last])
    }
}
