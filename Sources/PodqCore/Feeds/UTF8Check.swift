/// UTF-8 validation over raw bytes (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
enum UTF8Check {
    /// Checks `bytes`; returns nil when they are not UTF-8, else how many bytes at the end start a
    /// sequence that the next bytes must finish (0 when none).
    static func incompleteTail(_ bytes: UnsafeRawBufferPointer) -> Int? {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return 0 }
        let p = base.assumingMemoryBound(to: UInt8.self)
        var i = 0
        while i < count {
            // ASCII fast path: eight bytes with no high bit.
            if i + 8 <= count, UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) & 0x8080_8080_8080_8080 == 0 {
                i += 8
                continue
            }
            let lead = p[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return nil
            }
            for k in 1..<length {
                guard i + k < count else { return count - i }
                let c = p[i + k]
                if k == 1 {
                    guard c >= low && c <= high else { return nil }
                } else {
                    guard c & 0xC0 == 0x80 else { return nil }
                }
            }
            i += length
        }
        return 0
    }
}
