import FoundationEssentials
import Glibc
import PodqBase

/// A parsed `Content-Range` header: `bytes 100-199/1000`, `bytes 100-199/*` or `bytes */1000`.
public struct ContentRange: Sendable, Equatable {
    /// The first and last byte sent, inclusive; nil for the unsatisfied form `bytes */N`.
    public var range: ClosedRange<Int64>?
    /// The full length of the resource, nil when the server sent `*`.
    public var total: Int64?

    public init(range: ClosedRange<Int64>?, total: Int64?) {
        self.range = range
        self.total = total
    }

    /// Parses the header value; nil when it is not a valid byte range.
    public init?(_ header: String) {
        let text = header.trimmingSpaces
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst(6).trimmingSpaces
        let parts = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[1] == "*" {
            total = nil
        } else if let value = Int64(parts[1]), value >= 0 {
            total = value
        } else {
            return nil
        }
        if parts[0] == "*" {
            guard total != nil else { return nil }
            range = nil
            return
        }
        let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]),
            first >= 0, first <= last
        else { return nil }
        if let total, last >= total { return nil }
        range = first...last
    }
}
