import FoundationEssentials
import Glibc
import NIOHTTP1
import PodqBase

/// A request as a route sees it and as the server records it.
public struct ServerRequest: Sendable {
    /// A number unique within the server, in arrival order.
    public var sequence: Int
    /// `GET`, `HEAD`, …
    public var method: String
    /// The request target as sent (path and query).
    public var uri: String
    /// Every header, in order, names as sent.
    public var headers: [(name: String, value: String)]
    /// The number of the connection it arrived on.
    public var connection: Int
    /// What a POST or PUT sent (at most ``bodyLimit`` bytes are kept).
    public var body: [UInt8]
    /// The most of a request's body the server keeps.
    public static let bodyLimit = 8 << 20

    public init(sequence: Int, method: String, uri: String, headers: [(name: String, value: String)], connection: Int, body: [UInt8] = []) {
        self.sequence = sequence
        self.method = method
        self.uri = uri
        self.headers = headers
        self.connection = connection
        self.body = body
    }

    /// The path without the query string.
    public var path: String {
        String(uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }

    /// The query string's parameters (the last value wins), percent-decoded.
    public var query: [String: String] {
        guard let q = uri.split(separator: "?", maxSplits: 1).dropFirst().first else { return [:] }
        var result: [String: String] = [:]
        for pair in q.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = PercentEncoding.decode(kv[0]) ?? String(kv[0])
            let value = kv.count > 1 ? (PercentEncoding.decode(kv[1]) ?? String(kv[1])) : ""
            result[key] = value
        }
        return result
    }

    /// The first value of the header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
