import CDigest

/// A hash podq computes while a file streams: XXH3-128 for its own checksum (fast enough to cost
/// nothing next to the network), and the algorithms publishers and servers give.
public enum DigestAlgorithm: Int32, Sendable, CaseIterable, Comparable {
    case xxh3 = 0
    case md5 = 1
    case sha1 = 2
    case sha256 = 3
    case sha384 = 4
    case sha512 = 5

    /// The name podq writes before a stored digest (`xxh3:…`, `sha256:…`) and in provenance names.
    public var name: String {
        switch self {
        case .xxh3: "xxh3"
        case .md5: "md5"
        case .sha1: "sha1"
        case .sha256: "sha256"
        case .sha384: "sha384"
        case .sha512: "sha512"
        }
    }

    /// True when it can be computed here: XXH3 always, the others when libcrypto (OpenSSL 3) is
    /// installed (it is loaded at the first use).
    public var isAvailable: Bool { podq_digest_available(rawValue) == 1 }

    /// The algorithm named `name` (podq's names, SRI's `sha256`, Media RSS's `sha-1`, RFC 9530's
    /// `sha-256`), case-insensitively.
    public init?(name: String) {
        switch name.lowercased().replacingEvery("-", with: "") {
        case "xxh3": self = .xxh3
        case "md5": self = .md5
        case "sha1": self = .sha1
        case "sha256": self = .sha256
        case "sha384": self = .sha384
        case "sha512": self = .sha512
        default: return nil
        }
    }

    /// Bytes of a digest.
    public var length: Int {
        switch self {
        case .xxh3, .md5: 16
        case .sha1: 20
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// Stronger algorithms compare greater; XXH3 is not a cryptographic hash and is the weakest.
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// One running digest (a C context): feed it bytes, then take the result once. Not `Sendable`: one
/// thread at a time uses it (``FileDigest`` keeps its own behind a lock).
public final class Digester {
    public let algorithm: DigestAlgorithm
    private let context: OpaquePointer

    /// Nil when the algorithm is not available (``DigestAlgorithm/isAvailable``).
    public init?(_ algorithm: DigestAlgorithm) {
        self.algorithm = algorithm
        guard let context = podq_digest_new(algorithm.rawValue) else { return nil }
        self.context = context
    }

    deinit { podq_digest_free(context) }

    /// Adds `bytes`.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        podq_digest_update(context, base, bytes.count)
    }

    /// The digest of every byte given.
    public func finish() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 64)
        let count = out.withUnsafeMutableBufferPointer { podq_digest_final(context, $0.baseAddress) }
        return Array(out.prefix(count))
    }

    /// XXH3's code: AVX2 where the CPU has it (about twice the portable SSE2 code's speed), which
    /// tests can turn off to compare the two. True while AVX2 is taken.
    @discardableResult
    static func useVectorCode(_ wanted: Bool? = nil) -> Bool {
        podq_digest_vector(wanted.map { $0 ? 1 : 0 } ?? -1) == 1
    }

    /// The digest of `bytes` alone; nil when the algorithm is not available.
    public static func digest(_ algorithm: DigestAlgorithm, of bytes: some Collection<UInt8>) -> [UInt8]? {
        guard let digester = Digester(algorithm) else { return nil }
        Array(bytes).withUnsafeBytes { digester.update($0) }
        return digester.finish()
    }
}

extension Array where Element == UInt8 {
    /// Lower-case hexadecimal.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(count * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of a hexadecimal string (either case); nil when it is not one.
    public init?(hex: some StringProtocol) {
        let utf8 = Array(hex.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(utf8.count / 2)
        var i = 0
        while i < utf8.count {
            guard let high = value(utf8[i]), let low = value(utf8[i + 1]) else { return nil }
            bytes.append(high << 4 | low)
            i += 2
        }
        self = bytes
    }
}
