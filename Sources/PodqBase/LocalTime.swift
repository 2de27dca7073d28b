import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A moment in the local time zone as text, by C's `strftime` (what `DateFormatter` with the
/// en_US_POSIX locale gave; FoundationEssentials has no `DateFormatter`). Use numeric fields only
/// (`%Y-%m-%d %H:%M`): names of months and days would follow the process's locale.
public enum LocalTime {
    public static func text(_ date: Date, format: String) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var local = tm()
        guard localtime_r(&seconds, &local) != nil else { return "" }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { buffer in
            let count = strftime(buffer.baseAddress!, 128, format, &local)
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress!, count: count), as: UTF8.self)
        }
    }
}
