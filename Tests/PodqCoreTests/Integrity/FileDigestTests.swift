import PodqHTTP
import PodqTestSupport
import XCTest

@testable import PodqCore

/// Hashing as bytes are written, in order or not, with what was not hashed read back once.
final class FileDigestTests: XCTestCase {
    private var dir: TemporaryDirectory!
    private var folder: DownloadFolder!

    override func setUpWithError() throws {
        dir = TemporaryDirectory()
        folder = try DownloadFolder(path: dir.file("downloads"))
    }

    override func tearDown() { dir.remove() }

    private func write(_ file: PartialFile, _ bytes: ArraySlice<UInt8>, at offset: Int64) {
        let stream = file.makeOutputStream(at: offset)
        stream.open()
        _ = Array(bytes).withUnsafeBufferPointer { stream.write($0.baseAddress!, maxLength: $0.count) }
        stream.close()
    }

    func testWritesInAnyOrderGiveTheWholeFilesDigests() throws {
        let bytes = PatternSource(seed: 4, length: 3_000_000).bytes(count: 3_000_000)
        let whole = Digester.digest(.sha256, of: bytes)
        let check = Digester.digest(.xxh3, of: bytes)
        // Segments: the first in order, two later ones first, and the rest.
        let file = try XCTUnwrap(folder.claim("a.mp3"))
        let digest = FileDigest(algorithms: [.xxh3, .sha256, .xxh3])
        XCTAssertEqual(digest.algorithms, [.xxh3, .sha256], "each algorithm once")
        for (start, end) in [(2_000_000, 2_500_000), (0, 700_000), (1_000_000, 2_000_000), (700_000, 1_000_000), (2_500_000, 3_000_000)] {
            write(file, bytes[start..<end], at: Int64(start))
            bytes[start..<end].withUnsafeBytes { digest.update($0, at: Int64(start)) }
        }
        XCTAssertEqual(digest.hashed, 1_000_000, "hashed as written while the writes continued the prefix; 1–2 MB came before it reached them")
        let result = try digest.finish(file, length: 3_000_000)
        XCTAssertEqual(result.values[.sha256], whole)
        XCTAssertEqual(result.values[.xxh3], check)
        XCTAssertEqual(result.stored(.xxh3), "xxh3:" + (check?.hex ?? ""))
        XCTAssertNil(result.stored(.md5))
    }

    func testAResumedPrefixIsReadOnceThenTheBodyIsHashedAsItComes() throws {
        let bytes = PatternSource(seed: 5, length: 1_500_000).bytes(count: 1_500_000)
        let file = try XCTUnwrap(folder.claim("b.mp3"))
        write(file, bytes[0..<600_000], at: 0)
        let digest = FileDigest(algorithms: [.md5])
        try digest.catchUp(file, to: 600_000)
        XCTAssertEqual(digest.hashed, 600_000)
        write(file, bytes[600_000...], at: 600_000)
        bytes[600_000...].withUnsafeBytes { digest.update($0, at: 600_000) }
        XCTAssertEqual(digest.hashed, 1_500_000)
        // Nothing is left to read: truncate the file and the digest still stands.
        try file.truncate()
        XCTAssertEqual(try digest.finish(file, length: 1_500_000).values[.md5], Digester.digest(.md5, of: bytes))
    }

    func testAFileShorterThanItsLengthIsAnError() throws {
        let file = try XCTUnwrap(folder.claim("c.mp3"))
        write(file, [1, 2, 3][...], at: 0)
        XCTAssertThrowsError(try FileDigest(algorithms: [.xxh3]).finish(file, length: 10)) { error in
            guard case DownloadError.partialChanged = error else { return XCTFail("\(error)") }
        }
    }
}
