import PodqBase
import PodqCore
import XCTest

final class FormatTests: XCTestCase {
    func testHumanUnits() {
        XCTAssertEqual(Format.bytes(999), "999 B")
        XCTAssertEqual(Format.bytes(1_500), "1.5 KB")
        XCTAssertEqual(Format.bytes(12_345_678), "12.3 MB")
        XCTAssertEqual(Format.bytes(1_020_000_000), "1.02 GB")
        XCTAssertEqual(Format.speed(0), "-")
        XCTAssertEqual(Format.speed(2_500_000), "2.5 MB/s")
        XCTAssertEqual(Format.eta(nil), "-")
        XCTAssertEqual(Format.eta(41.2), "42s")
        XCTAssertEqual(Format.eta(185), "3m05s")
        XCTAssertEqual(Format.eta(3720), "1h02m")
        XCTAssertEqual(Format.eta(1e9), ">99h")
        XCTAssertEqual(Format.percent(0.07), "  7%")
        XCTAssertEqual(Format.percent(1), "100%")
        XCTAssertEqual(Format.percent(nil), "  ?%")
        XCTAssertEqual(Format.amount(received: 1000, expected: nil), "1.0 KB / ?")
    }

    /// `Format.bytes` writes what C's `printf` wrote before it (`%.1f KB`, `%.1f MB`, `%.2f GB` of the
    /// `Double` quotient): every count below 2,000,000, every halfway count of the megabytes and a
    /// hundred thousand of the gigabytes (where the `Double` falls above, below or on the halfway
    /// point), and random counts of every size.
    func testBytesWritesWhatPrintfWrote() {
        func printf(_ count: Int64) -> String {
            let value = Double(count)
            switch count {
            case ..<1000: return "\(count) B"
            case ..<1_000_000: return String(printf: "%.1f KB", value / 1e3)
            case ..<1_000_000_000: return String(printf: "%.1f MB", value / 1e6)
            default: return String(printf: "%.2f GB", value / 1e9)
            }
        }
        var counts = Array(Int64(-5)..<2_000_000)
        counts += (0..<10_000).map { Int64($0) * 100_000 + 50_000 }
        var random = SystemRandomNumberGenerator()
        counts += (0..<100_000).map { _ in Int64.random(in: 100...9_999_999_999, using: &random) * 10_000_000 + 5_000_000 }
        counts += (0..<100_000).map { _ in Int64.random(in: 0...Int64.max >> Int.random(in: 0...62, using: &random), using: &random) }
        counts += [Int64.max, 1 << 52, (1 << 52) - 5_000_000, 999_950, 999_999_999, 1_004_999_999]
        var differ: [Int64] = []
        for count in counts where Format.bytes(count) != printf(count) { differ.append(count) }
        XCTAssertEqual(differ.count, 0, "first: \(differ.prefix(5).map { "\($0): \(Format.bytes($0)) vs \(printf($0))" })")
    }

    /// `Format.eta` writes what `%ldm%02lds` and `%ldh%02ldm` wrote, for every second up to `>99h`.
    func testETAWritesWhatPrintfWrote() {
        for s in 0..<(100 * 3600 + 5) {
            let expected =
                switch s {
                case ..<60: "\(s)s"
                case ..<3600: String(printf: "%ldm%02lds", s / 60, s % 60)
                case ..<(100 * 3600): String(printf: "%ldh%02ldm", s / 3600, (s % 3600) / 60)
                default: ">99h"
                }
            if Format.eta(Double(s)) != expected { return XCTFail("\(s): \(Format.eta(Double(s))) vs \(expected)") }
        }
    }
}
