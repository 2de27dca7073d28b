import Crypto
import Foundation
import PodqCore
import PodqSession

/// `podq-bench digest [--write FILE]`: what hashing a download as it streams costs (issue 18), per
/// algorithm, over 1 GiB in 256 KiB pieces (the size of podq's reads): podq's own checksum (XXH3-128),
/// the algorithms publishers give (libcrypto's MD5, SHA-1, SHA-2), and swift-crypto's SHA-256 (the
/// alternative to libcrypto) for comparison. CPU seconds per GiB, next to podq's whole CPU for a
/// 1 GiB download (the compare table's row a).
enum DigestBench {
    static let total = 1 << 30
    static let piece = 256 << 10

    static func run(_ options: [String]) throws {
        var buffer = [UInt8](repeating: 0, count: piece)
        for i in buffer.indices { buffer[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 13) }
        var rows: [(String, Double)] = []
        for algorithm in DigestAlgorithm.allCases {
            let seconds = best {
                guard let digester = Digester(algorithm) else { return }
                buffer.withUnsafeBytes { bytes in
                    for _ in 0..<(total / piece) { digester.update(bytes) }
                }
                _ = digester.finish()
            }
            rows.append(((algorithm == .xxh3 ? "XXH3-128 (podq's checksum)" : algorithm.name.uppercased() + " (libcrypto)"), seconds))
        }
        let crypto = best {
            var hasher = SHA256()
            buffer.withUnsafeBytes { bytes in
                for _ in 0..<(total / piece) { hasher.update(bufferPointer: bytes) }
            }
            _ = hasher.finalize()
        }
        rows.append(("SHA256 (swift-crypto)", crypto))
        var text =
            "Measured by `podq-bench digest` (`make bench`) on \(day()), \(ProcessInfo.processInfo.activeProcessorCount) cores: "
            + "1 GiB hashed in memory in 256 KiB pieces, best of 3, one core.\n\n"
            + "| algorithm | CPU s per GiB | GB/s |\n|---|---|---|\n"
        for (name, seconds) in rows {
            text += "| \(name) | \(String(format: "%.3f", seconds)) | \(String(format: "%.2f", Double(total) / seconds / 1e9)) |\n"
        }
        print(text)
        if let index = options.firstIndex(of: "--write"), options.indices.contains(index + 1) {
            try BenchReport.replace(
                between: "<!-- make bench: digest start -->", and: "<!-- make bench: digest end -->",
                in: options[index + 1], with: text)
            print("wrote \(options[index + 1])")
        }
    }

    /// The shortest of three runs of `work`, in seconds of this thread's CPU.
    private static func best(_ work: () -> Void) -> Double {
        (0..<3).map { _ in
            let start = cpu()
            work()
            return cpu() - start
        }.min() ?? 0
    }

    private static func cpu() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func day() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date())
    }
}
