import XCTest

@testable import PodqCore

/// The decision at the end of a pass, every case.
final class IntegrityVerdictTests: XCTestCase {
    let right = [UInt8](repeating: 1, count: 32)
    let wrong = [UInt8](repeating: 2, count: 32)
    let check = [UInt8](repeating: 3, count: 16)

    private func digests(sha256: [UInt8]) -> FileDigests { FileDigests(values: [.xxh3: check, .sha256: sha256]) }
    private var published: PublishedDigest { PublishedDigest(source: .sri, algorithm: .sha256, bytes: right) }

    func testNothingPublishedIsVerifiedByTheLengthOrByNothing() {
        let byLength = IntegrityVerdict.decide(
            digests: digests(sha256: right), expected: nil, lengthKnown: true, checksumAlgorithm: .xxh3, earlierMismatch: nil)
        XCTAssertEqual(byLength, .verified(Integrity(checksum: "xxh3:" + check.hex, sha256: right.hex, verifiedBy: "length")))
        let none = IntegrityVerdict.decide(
            digests: FileDigests(values: [.xxh3: check]), expected: nil, lengthKnown: false, checksumAlgorithm: .xxh3, earlierMismatch: nil)
        XCTAssertEqual(none, .verified(Integrity(checksum: "xxh3:" + check.hex, verifiedBy: "none")))
    }

    func testAMatchNamesItsSource() {
        let verdict = IntegrityVerdict.decide(
            digests: digests(sha256: right), expected: published, lengthKnown: true, checksumAlgorithm: .xxh3, earlierMismatch: "xxh3:00")
        XCTAssertEqual(verdict, .verified(Integrity(checksum: "xxh3:" + check.hex, sha256: right.hex, verifiedBy: "sri-sha256")))
        let asChecksum = IntegrityVerdict.decide(
            digests: digests(sha256: right), expected: nil, lengthKnown: true, checksumAlgorithm: .sha256, earlierMismatch: nil)
        XCTAssertEqual(asChecksum, .verified(Integrity(checksum: "sha256:" + right.hex, sha256: right.hex, verifiedBy: "length")))
    }

    func testTheFirstMismatchRefetchesAndTheSecondIsUnverifiedWithWhy() {
        let first = IntegrityVerdict.decide(
            digests: digests(sha256: wrong), expected: published, lengthKnown: true, checksumAlgorithm: .xxh3, earlierMismatch: nil)
        guard case .refetch(let checksum, let reason) = first else { return XCTFail("\(first)") }
        XCTAssertEqual(checksum, "xxh3:" + check.hex)
        XCTAssertTrue(reason.contains("the feed's podcast:integrity says 0101"), reason)

        let same = IntegrityVerdict.decide(
            digests: digests(sha256: wrong), expected: published, lengthKnown: true, checksumAlgorithm: .xxh3, earlierMismatch: checksum)
        guard case .unverified(let stale) = same else { return XCTFail("\(same)") }
        XCTAssertEqual(stale.verifiedBy, "unverified")
        XCTAssertTrue(stale.problem?.contains("the same bytes both times: the published hash is wrong or out of date") == true, stale.problem ?? "")

        let changing = IntegrityVerdict.decide(
            digests: digests(sha256: wrong), expected: published, lengthKnown: true, checksumAlgorithm: .xxh3, earlierMismatch: "xxh3:ffff")
        guard case .unverified(let ads) = changing else { return XCTFail("\(changing)") }
        XCTAssertTrue(ads.problem?.contains("different bytes each time: the host changes the file on every request") == true, ads.problem ?? "")
    }

    func testStoredChecksumsAreRead() {
        XCTAssertEqual(Integrity.parse(checksum: "xxh3:" + check.hex)?.0, .xxh3)
        XCTAssertEqual(Integrity.parse(checksum: "sha256:" + right.hex)?.1, right)
        XCTAssertNil(Integrity.parse(checksum: "xxh3:abc"))
        XCTAssertNil(Integrity.parse(checksum: "crc:00"))
        XCTAssertNil(Integrity.parse(checksum: "nothing"))
    }
}
