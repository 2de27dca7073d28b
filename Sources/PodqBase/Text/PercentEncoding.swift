/// Percent-encoding (RFC 3986) on bytes: what `addingPercentEncoding(withAllowedCharacters:)` and
/// `removingPercentEncoding` did, without Foundation's CharacterSet (not in FoundationEssentials).
public enum PercentEncoding {
    /// Which bytes stay as they are.
    public struct Allowed: Sendable {
        let keeps: @Sendable (UInt8) -> Bool

        public init(_ keeps: @escaping @Sendable (UInt8) -> Bool) { self.keeps = keeps }

        /// Letters and digits (ASCII).
        public static let alphanumerics = Allowed { isAlphanumeric($0) }
        /// RFC 3986's unreserved characters: letters, digits, `-`, `.`, `_` and `~`.
        public static let unreserved = Allowed { isAlphanumeric($0) || $0 == 0x2D || $0 == 0x2E || $0 == 0x5F || $0 == 0x7E }
        /// Foundation's `.urlQueryAllowed`: what may stand in a URL's query unescaped
        /// (`!$&'()*+,-./:;=?@_~`, letters and digits).
        public static let urlQuery = Allowed { isAlphanumeric($0) || "!$&'()*+,-./:;=?@_~".utf8.contains($0) }

        /// These bytes kept besides what `self` keeps.
        public func adding(_ extra: String) -> Allowed {
            let extra = Array(extra.utf8)
            let keeps = self.keeps
            return Allowed { keeps($0) || extra.contains($0) }
        }

        static func isAlphanumeric(_ b: UInt8) -> Bool {
            (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b)
        }
    }

    /// `text`'s UTF-8 with every byte that `allowed` does not keep written as `%XX` (upper-case hex).
    public static func encode(_ text: some StringProtocol, allowing allowed: Allowed) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for b in text.utf8 {
            if allowed.keeps(b) {
                out.append(b)
            } else {
                out.append(0x25)
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `text` with every `%XX` decoded; nil when a `%` is not followed by two hex digits or the bytes
    /// are not UTF-8 (as `removingPercentEncoding`).
    public static func decode(_ text: some StringProtocol) -> String? {
        guard text.utf8.contains(0x25) else { return String(text) }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x25 {
                guard i + 2 < bytes.count, let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2]) else { return nil }
                out.append(high << 4 | low)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: b - 0x30
        case 0x41...0x46: b - 0x41 + 10
        case 0x61...0x66: b - 0x61 + 10
        default: nil
        }
    }
}
