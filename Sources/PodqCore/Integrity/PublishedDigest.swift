import FoundationEssentials
import Glibc
import NIOHTTP1
import PodqBase
import RawStructuredFieldValues

/// A hash of a file given by someone other than podq: the publisher in the feed, or the server in a
/// header. Which one it is decides how much it proves (``rank``) and what podq records as having
/// verified the file (``provenance``).
public struct PublishedDigest: Sendable, Hashable {
    /// Where a digest came from, from the most to the least authoritative.
    public enum Source: String, Sendable, CaseIterable {
        /// `podcast:integrity type="sri"` (Podcasting 2.0): the publisher's, end to end.
        case sri
        /// Media RSS `<media:hash algo="md5|sha-1">`: the publisher's.
        case mediaHash = "media-hash"
        /// RFC 9530's `Repr-Digest`: the server's, of the whole file (asked for with `Want-Repr-Digest`).
        case reprDigest = "repr-digest"
        /// RFC 9530's `Content-Digest` of a whole (200, not encoded) body: the server's.
        case contentDigest = "content-digest"
        /// Google Cloud Storage's `x-goog-hash: md5=…`: the store's.
        case gcs
    }

    public var source: Source
    public var algorithm: DigestAlgorithm
    public var bytes: [UInt8]

    public init(source: Source, algorithm: DigestAlgorithm, bytes: [UInt8]) {
        self.source = source
        self.algorithm = algorithm
        self.bytes = bytes
    }

    /// What verified a file that matched it: `sri-sha256`, `media-hash-md5`, `repr-digest`,
    /// `content-digest` or `gcs-md5`.
    public var provenance: String {
        switch source {
        case .sri, .mediaHash: "\(source.rawValue)-\(algorithm.name)"
        case .reprDigest, .contentDigest: source.rawValue
        case .gcs: "gcs-md5"
        }
    }

    /// Its stored form: `sri sha256 <hex>`.
    public var text: String { "\(source.rawValue) \(algorithm.name) \(bytes.hex)" }

    /// Sorts the most authoritative first: the publisher's before the server's, and within a source the
    /// stronger algorithm.
    var rank: (Int, Int) {
        (Source.allCases.firstIndex(of: source) ?? 99, -Int(algorithm.rawValue))
    }

    /// The one to verify a file against: the most authoritative of `digests`.
    public static func strongest(_ digests: [PublishedDigest]) -> PublishedDigest? {
        digests.min { $0.rank < $1.rank }
    }

    // MARK: Stored form

    /// `digests` as one column: their ``text`` joined by `;` (nil when there is none).
    public static func stored(_ digests: [PublishedDigest]) -> String? {
        digests.isEmpty ? nil : digests.map(\.text).joined(separator: ";")
    }

    /// The digests of a stored column; what cannot be read is left out.
    public static func parse(stored: String?) -> [PublishedDigest] {
        guard let stored else { return [] }
        return stored.split(separator: ";").compactMap { entry in
            let parts = entry.split(separator: " ")
            guard parts.count == 3, let source = Source(rawValue: String(parts[0])), let algorithm = DigestAlgorithm(name: String(parts[1])),
                let bytes = [UInt8](hex: parts[2]), bytes.count == algorithm.length
            else { return nil }
            return PublishedDigest(source: source, algorithm: algorithm, bytes: bytes)
        }
    }

    // MARK: Reading them where they are given

    /// The digests of a Subresource Integrity value (`sha384-<base64>`, several separated by spaces,
    /// each perhaps with `?options`). Unknown algorithms and malformed ones are skipped.
    public static func sri(_ value: String) -> [PublishedDigest] {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).compactMap { token in
            let body = token.prefix { $0 != "?" }
            guard let dash = body.firstIndex(of: "-"),
                let algorithm = DigestAlgorithm(name: String(body[..<dash])), algorithm >= .sha256,
                let bytes = base64(body[body.index(after: dash)...]), bytes.count == algorithm.length
            else { return nil }
            return PublishedDigest(source: .sri, algorithm: algorithm, bytes: bytes)
        }
    }

    /// A Media RSS `<media:hash>`: `algo` is `md5` (the default) or `sha-1`, the value hexadecimal.
    public static func mediaHash(algo: String?, value: String) -> PublishedDigest? {
        guard let algorithm = DigestAlgorithm(name: algo?.trimmingASCIIWhitespace ?? "md5"), algorithm == .md5 || algorithm == .sha1,
            let bytes = [UInt8](hex: value.trimmingASCIIWhitespace), bytes.count == algorithm.length
        else { return nil }
        return PublishedDigest(source: .mediaHash, algorithm: algorithm, bytes: bytes)
    }

    /// The digests a response's headers give of the whole file: `Repr-Digest` always, `Content-Digest`
    /// only for a whole body (a 200), `x-goog-hash`'s md5.
    public static func fromHeaders(_ headers: HTTPHeaders, status: Int) -> [PublishedDigest] {
        var found: [PublishedDigest] = []
        for value in headers["Repr-Digest"] { found += structuredDigests(value, source: .reprDigest) }
        if status == 200 {
            for value in headers["Content-Digest"] { found += structuredDigests(value, source: .contentDigest) }
        }
        for value in headers["x-goog-hash"] {
            for member in value.split(separator: ",") {
                let pair = String(member).trimmingASCIIWhitespace
                guard pair.lowercased().hasPrefix("md5="), let bytes = base64(pair.dropFirst(4)), bytes.count == 16 else { continue }
                found.append(PublishedDigest(source: .gcs, algorithm: .md5, bytes: bytes))
            }
        }
        return found
    }

    /// The members of an RFC 9530 dictionary (`sha-256=:<base64>:, sha-512=:…:`) podq can check, read
    /// by swift-http-structured-headers' RFC 9651 parser: a field that is not a valid dictionary is
    /// ignored whole, as RFC 9651 says; a member that is not a byte sequence of its algorithm's length
    /// is skipped.
    static func structuredDigests(_ value: String, source: Source) -> [PublishedDigest] {
        var parser = StructuredFieldValueParser(Array(value.utf8))
        guard let members = try? parser.parseDictionaryFieldValue() else { return [] }
        return members.compactMap { key, member in
            guard case .item(let item) = member, case .undecodedByteSequence(let encoded) = item.rfc9651BareItem,
                let algorithm = DigestAlgorithm(name: key), algorithm == .sha256 || algorithm == .sha512,
                let bytes = base64(encoded), bytes.count == algorithm.length
            else { return nil }
            return PublishedDigest(source: source, algorithm: algorithm, bytes: bytes)
        }
    }

    /// Base64, standard or URL-safe, with or without its padding.
    static func base64(_ text: some StringProtocol) -> [UInt8]? {
        var s = String(text).trimmingASCIIWhitespace.replacingEvery("-", with: "+").replacingEvery("_", with: "/")
        while s.utf8.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s).map { [UInt8]($0) }
    }
}
