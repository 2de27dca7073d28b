import PodqServer
import XCTest

@testable import PodqCore

/// XXH3-128 through its AVX2 code and through the portable code: the same digest for every length
/// around its stripes (64 bytes) and blocks (1,024), fed in any cut, and xxHash's own answer.
final class DigesterTests: XCTestCase {
    override func tearDown() { Digester.useVectorCode(true) }

    private func xxh3(_ bytes: [UInt8], cuts: [Int], vector: Bool) -> String {
        Digester.useVectorCode(vector)
        let digester = Digester(.xxh3)!
        var start = 0
        for cut in cuts + [bytes.count] where cut >= start && cut <= bytes.count {
            bytes[start..<cut].withUnsafeBytes { digester.update($0) }
            start = cut
        }
        return digester.finish().hex
    }

    func testTheEmptyInputGivesXXHashsOwnAnswer() {
        XCTAssertEqual(xxh3([], cuts: [], vector: true), "99aa06d3014798d86001c324468d497f")
        XCTAssertEqual(xxh3([], cuts: [], vector: false), "99aa06d3014798d86001c324468d497f")
    }

    func testAVX2AndPortableCodeAgreeOnEveryLengthAndCut() {
        var random = SeededGenerator(seed: 45)
        let data = (0..<300_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        var lengths = Array(0...2_100)
        lengths += (0..<40).map { _ in Int.random(in: 2_100...data.count, using: &random) }
        for length in lengths {
            let bytes = Array(data.prefix(length))
            let whole = xxh3(bytes, cuts: [], vector: false)
            let cuts = (0..<Int.random(in: 0...6, using: &random)).map { _ in Int.random(in: 0...max(0, length), using: &random) }.sorted()
            XCTAssertEqual(xxh3(bytes, cuts: cuts, vector: true), whole, "length \(length), cut at \(cuts)")
            XCTAssertEqual(xxh3(bytes, cuts: cuts, vector: false), whole, "length \(length), cut at \(cuts)")
        }
    }

    /// Where the CPU has AVX2 (this machine's has), podq takes it.
    func testTheVectorCodeIsTakenWhereTheCPUHasIt() throws {
        let flags = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        XCTAssertEqual(Digester.useVectorCode(true), flags.contains(" avx2"))
    }
}
