import Foundation

/// What a process's resident memory is, by mapping (`/proc/<pid>/smaps`): its heap and other
/// anonymous memory, and for each file mapped (the podq binary, the C libraries) its code, its
/// read-only data and its written data. `podq-bench library` prints it where it measures RSS, so
/// docs/PERFORMANCE.md can say what each megabyte is.
struct MemoryMap {
    /// Resident kB by part, e.g. "podq r-xp" (code), "podq r--p" (read-only data: ICU's tables
    /// among them), "anonymous", "[heap]", "libc.so.6 r-xp".
    var parts: [String: Int] = [:]

    init(pid: pid_t) {
        // Read to the end: `String(contentsOfFile:)` stops after the first read of a /proc file (its size is 0).
        guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/smaps") else { return }
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        try? handle.close()
        var current = "anonymous"
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first.contains("-") && fields.count >= 5 && !first.hasSuffix(":") {
                // A mapping's header: address perms offset device inode [path].
                let perms = String(fields[1])
                if fields.count >= 6 {
                    let path = fields[5...].joined(separator: " ")
                    current = path.hasPrefix("[") ? path : "\((path as NSString).lastPathComponent) \(perms)"
                } else {
                    current = "anonymous"
                }
            } else if first == "Rss:", fields.count >= 2, let kB = Int(fields[1]) {
                parts[current, default: 0] += kB
            }
        }
    }

    /// The parts over `minimumKB`, largest first, as "name 12.3 MB".
    func largest(minimumKB: Int = 512) -> [String] {
        parts.filter { $0.value >= minimumKB }.sorted { $0.value > $1.value }
            .map { String(format: "%@ %.1f MB", $0.key, Double($0.value) * 1024 / 1e6) }
    }
}
