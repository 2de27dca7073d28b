/// What podq knows of a completed file's bytes: its own checksum (for `podq verify`), its SHA-256
/// when one was computed (the hook's `PODQ_SHA256`), and what verified it.
public struct Integrity: Sendable, Equatable {
    /// podq's checksum of the file, with its algorithm: `xxh3:<hex>`, or `sha256:<hex>` with
    /// `checksum = sha256`.
    public var checksum: String
    /// The file's SHA-256 in hexadecimal, when it was computed (a publisher's SHA-256, a hook, or
    /// `checksum = sha256`).
    public var sha256: String?
    /// What vouched for the bytes: a ``PublishedDigest/provenance`` (`sri-sha256`, `media-hash-md5`,
    /// `repr-digest`, `content-digest`, `gcs-md5`), else `length` (the server's length matched) or
    /// `none` (the server did not even say how long the file is).
    public var verifiedBy: String
    /// Why the file is unverified: it differed from its published digest on two fetches. Nil when it
    /// is verified.
    public var problem: String?

    public init(checksum: String, sha256: String? = nil, verifiedBy: String, problem: String? = nil) {
        self.checksum = checksum
        self.sha256 = sha256
        self.verifiedBy = verifiedBy
        self.problem = problem
    }

    /// The algorithm and digest of a stored ``checksum``; nil when it cannot be read.
    public static func parse(checksum: String) -> (DigestAlgorithm, [UInt8])? {
        guard let colon = checksum.firstIndex(of: ":"), let algorithm = DigestAlgorithm(name: String(checksum[..<colon])),
            let bytes = [UInt8](hex: checksum[checksum.index(after: colon)...]), bytes.count == algorithm.length
        else { return nil }
        return (algorithm, bytes)
    }
}

/// The decision at the end of a pass, pure: does the file match what was published, and what to do
/// when it does not.
public enum IntegrityVerdict: Sendable, Equatable {
    /// The file matched `expected` (or there was nothing to match): complete it.
    case verified(Integrity)
    /// The first mismatch: fetch the file once more from zero. `checksum` is this pass's, to tell a
    /// host that changes the bytes on every request from a wrong published hash.
    case refetch(checksum: String, reason: String)
    /// The second mismatch: complete the file, flagged with the reason.
    case unverified(Integrity)

    /// Decides for a pass whose file has `digests`.
    /// - Parameters:
    ///   - expected: the published digest checked (``PublishedDigest/strongest(_:)``), if any.
    ///   - lengthKnown: the server said how long the file is (and the length was checked).
    ///   - checksumAlgorithm: podq's own checksum's algorithm.
    ///   - earlierMismatch: the checksum of an earlier pass that did not match, if one did not.
    public static func decide(
        digests: FileDigests, expected: PublishedDigest?, lengthKnown: Bool,
        checksumAlgorithm: DigestAlgorithm, earlierMismatch: String?
    ) -> IntegrityVerdict {
        let checksum = digests.stored(checksumAlgorithm) ?? ""
        let sha256 = digests.values[.sha256]?.hex
        guard let expected else {
            return .verified(Integrity(checksum: checksum, sha256: sha256, verifiedBy: lengthKnown ? "length" : "none"))
        }
        if digests.values[expected.algorithm] == expected.bytes {
            return .verified(Integrity(checksum: checksum, sha256: sha256, verifiedBy: expected.provenance))
        }
        let got = digests.values[expected.algorithm]?.hex ?? "?"
        let said = "the file's \(expected.algorithm.name) is \(got.prefix(16))…, \(describe(expected.source)) says \(expected.bytes.hex.prefix(16))…"
        guard let earlierMismatch else { return .refetch(checksum: checksum, reason: said) }
        let why =
            earlierMismatch == checksum
            ? "it differed twice, with the same bytes both times: the published hash is wrong or out of date"
            : "it differed twice, with different bytes each time: the host changes the file on every request (ads inserted per download), so no published hash can match"
        return .unverified(Integrity(checksum: checksum, sha256: sha256, verifiedBy: "unverified", problem: "\(said); \(why)"))
    }

    static func describe(_ source: PublishedDigest.Source) -> String {
        switch source {
        case .sri: "the feed's podcast:integrity"
        case .mediaHash: "the feed's media:hash"
        case .reprDigest: "the server's Repr-Digest"
        case .contentDigest: "the server's Content-Digest"
        case .gcs: "the server's x-goog-hash"
        }
    }
}
