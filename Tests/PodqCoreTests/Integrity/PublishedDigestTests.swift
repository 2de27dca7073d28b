import NIOHTTP1
import XCTest

@testable import PodqCore

/// Reading the hashes publishers and servers give: SRI, Media RSS, RFC 9530 and GCS headers.
final class PublishedDigestTests: XCTestCase {
    /// SHA-256 and SHA-384 of "abc", the FIPS 180 test vectors.
    static let abc256 = [UInt8](hex: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")!
    static let abc384 = [UInt8](hex: "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7")!
    static let abcMD5 = [UInt8](hex: "900150983cd24fb0d6963f7d28e17f72")!

    func testTheAlgorithmsMatchTheirPublishedTestVectors() {
        XCTAssertTrue(DigestAlgorithm.allCases.allSatisfy(\.isAvailable), "libcrypto.so.3 is loaded when first needed")
        let abc = Array("abc".utf8)
        XCTAssertEqual(Digester.digest(.sha256, of: abc), Self.abc256)
        XCTAssertEqual(Digester.digest(.sha384, of: abc), Self.abc384)
        XCTAssertEqual(Digester.digest(.md5, of: abc), Self.abcMD5)
        XCTAssertEqual(Digester.digest(.sha1, of: abc)?.hex, "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(Digester.digest(.sha512, of: abc)?.hex.prefix(32), "ddaf35a193617abacc417349ae204131")
        // xxHash's own: XXH3_128bits("") and of "abc", canonical (big-endian) form.
        XCTAssertEqual(Digester.digest(.xxh3, of: [])?.hex, "99aa06d3014798d86001c324468d497f")
        XCTAssertEqual(Digester.digest(.xxh3, of: abc)?.hex, "06b05ab6733a618578af5f94892f3950")
    }

    func testSubresourceIntegrityValues() {
        let b64 = Data(Self.abc384).base64EncodedString()
        XCTAssertEqual(PublishedDigest.sri("sha384-\(b64)"), [PublishedDigest(source: .sri, algorithm: .sha384, bytes: Self.abc384)])
        // Several, with options, unpadded, URL-safe, and in upper case.
        let unpadded = Data(Self.abc256).base64EncodedString().replacingOccurrences(of: "=", with: "")
        let found = PublishedDigest.sri("  SHA256-\(unpadded)?ct=audio/mpeg  sha384-\(b64) ")
        XCTAssertEqual(found.map(\.algorithm), [.sha256, .sha384])
        XCTAssertEqual(found.first?.bytes, Self.abc256)
        // Weak algorithms, wrong lengths and garbage are not digests.
        XCTAssertEqual(PublishedDigest.sri("md5-\(Data(Self.abcMD5).base64EncodedString())"), [])
        XCTAssertEqual(PublishedDigest.sri("sha256-\(b64)"), [], "a 48-byte value is not a SHA-256")
        XCTAssertEqual(PublishedDigest.sri("sha256-!!!! sha512 nothing"), [])
    }

    func testMediaHashes() {
        XCTAssertEqual(PublishedDigest.mediaHash(algo: nil, value: " 900150983CD24FB0D6963F7D28E17F72\n")?.bytes, Self.abcMD5, "md5 is the default")
        XCTAssertEqual(PublishedDigest.mediaHash(algo: "sha-1", value: "a9993e364706816aba3e25717850c26c9cd0d89d")?.algorithm, .sha1)
        XCTAssertNil(PublishedDigest.mediaHash(algo: "sha-1", value: Self.abcMD5.hex), "an MD5's length under sha-1")
        XCTAssertNil(PublishedDigest.mediaHash(algo: "crc32", value: "00000000"))
        XCTAssertNil(PublishedDigest.mediaHash(algo: "md5", value: "not hex at all, not hex at all!!"))
    }

    func testHeaders() {
        let b64 = Data(Self.abc256).base64EncodedString()
        var headers = HTTPHeaders()
        headers.add(name: "Repr-Digest", value: "unixsum=:AAAA:, sha-256=:\(b64):")
        headers.add(name: "Content-Digest", value: "sha-256=:\(b64):")
        headers.add(name: "x-goog-hash", value: "crc32c=n03x6A==")
        headers.add(name: "x-goog-hash", value: "md5=\(Data(Self.abcMD5).base64EncodedString())")
        let whole = PublishedDigest.fromHeaders(headers, status: 200)
        XCTAssertEqual(whole.map(\.provenance), ["repr-digest", "content-digest", "gcs-md5"])
        XCTAssertEqual(whole.map(\.bytes), [Self.abc256, Self.abc256, Self.abcMD5])
        // A 206's Content-Digest is of the part sent, not of the file.
        XCTAssertEqual(PublishedDigest.fromHeaders(headers, status: 206).map(\.provenance), ["repr-digest", "gcs-md5"])
        var bad = HTTPHeaders()
        bad.add(name: "Repr-Digest", value: "sha-256=\(b64), sha-256=::, sha-512=:\(b64):")
        XCTAssertEqual(PublishedDigest.fromHeaders(bad, status: 200), [], "no colons, empty, or the wrong length")
    }

    /// `Repr-Digest` as RFC 9651 reads it (swift-http-structured-headers): optional whitespace, parameters
    /// on a member, unknown algorithms skipped; a field that is not a valid dictionary gives nothing at all.
    func testReprDigestIsReadAsAStructuredDictionary() {
        let b64 = Data(Self.abc256).base64EncodedString()
        func digests(_ value: String) -> [[UInt8]] {
            var headers = HTTPHeaders()
            headers.add(name: "Repr-Digest", value: value)
            return PublishedDigest.fromHeaders(headers, status: 206).map(\.bytes)
        }
        XCTAssertEqual(digests("sha-256=:\(b64):"), [Self.abc256])
        XCTAssertEqual(digests("crc32=:AAAAAA==:,sha-256=:\(b64):;note=1"), [Self.abc256], "no space, a parameter, an unknown algorithm")
        XCTAssertEqual(digests("sha-256=:\(b64):,   md5=:AAAA:"), [Self.abc256])
        XCTAssertEqual(digests("sha-256=:\(b64):, sha-256"), [], "a key given twice: the last wins (here a boolean), as RFC 9651 says")
        XCTAssertEqual(digests("sha-256=:\(b64):, =oops"), [], "not a dictionary: the whole field is ignored")
        XCTAssertEqual(digests("sha-256=:\(b64)"), [], "an unterminated byte sequence")
        XCTAssertEqual(digests("sha-256=\"\(b64)\""), [], "a string, not a byte sequence")
    }

    func testTheFeedsHashWinsAndTheStoredFormRoundTrips() {
        let sri = PublishedDigest(source: .sri, algorithm: .sha256, bytes: Self.abc256)
        let sri384 = PublishedDigest(source: .sri, algorithm: .sha384, bytes: Self.abc384)
        let media = PublishedDigest(source: .mediaHash, algorithm: .md5, bytes: Self.abcMD5)
        let repr = PublishedDigest(source: .reprDigest, algorithm: .sha256, bytes: Self.abc256)
        let gcs = PublishedDigest(source: .gcs, algorithm: .md5, bytes: Self.abcMD5)
        XCTAssertEqual(PublishedDigest.strongest([gcs, repr, media, sri, sri384]), sri384)
        XCTAssertEqual(PublishedDigest.strongest([gcs, repr, media]), media, "the publisher's word before the server's")
        XCTAssertEqual(PublishedDigest.strongest([gcs, repr]), repr)
        XCTAssertNil(PublishedDigest.strongest([]))
        let all = [sri, sri384, media, repr, gcs]
        XCTAssertEqual(PublishedDigest.parse(stored: PublishedDigest.stored(all)), all)
        XCTAssertNil(PublishedDigest.stored([]))
        XCTAssertEqual(PublishedDigest.parse(stored: "sri sha256 00;bogus;sri sha999 ab;" + sri.text), [sri], "what cannot be read is left out")
    }
}
