#if canImport(Glibc)
    import Glibc
#endif

extension String {
    /// C's `printf` formatting (`%.1f`, `%02ld`, `%02X`…), as `String(format:)` did; FoundationEssentials
    /// has no `String(format:)`. Give `Int` to `%ld`, not `%d`. Always in the C locale (a `.` before
    /// decimals), whatever locale the TUI set for its characters.
    public init(printf format: String, _ arguments: any CVarArg...) {
        let previous = uselocale(Self.cLocale)
        defer { uselocale(previous) }
        var capacity = 64
        while true {
            let (count, text): (Int32, String) = withVaList(arguments) { list in
                withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer in
                    let n = vsnprintf(buffer.baseAddress!, capacity, format, list)
                    guard n >= 0, Int(n) < capacity else { return (n, "") }
                    return (n, String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress!, count: Int(n)), as: UTF8.self))
                }
            }
            if count < 0 { self = ""; return }
            if Int(count) < capacity { self = text; return }
            capacity = Int(count) + 1
        }
    }

    /// The C locale, made once. nonisolated(unsafe): a `locale_t` is never changed after `newlocale`
    /// makes it, and `uselocale` only reads it, on any thread.
    nonisolated(unsafe) private static let cLocale = newlocale(1 << LC_NUMERIC, "C", nil)
}
