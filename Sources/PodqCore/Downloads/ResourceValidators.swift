import FoundationEssentials
import Glibc
import NIOHTTP1
import PodqBase

/// What the first response said about the resource, used to check that a resume continues the same
/// bytes: the strong ETag, Last-Modified, the total length and the final URL after redirects.
public struct ResourceValidators: Sendable, Equatable, Codable {
    /// The ETag when it is strong (weak `W/` tags cannot validate byte ranges).
    public var strongETag: String?
    /// The ETag when it is weak (`W/"…"`, kept whole): it cannot vouch for bytes, but a different
    /// one proves the file changed.
    public var weakETag: String?
    /// The `Last-Modified` value, verbatim.
    public var lastModified: String?
    /// The full length of the resource, when known.
    public var totalLength: Int64?
    /// The URL the redirects ended at.
    public var finalURL: String?
    /// The digests the server gave of the whole file (`Repr-Digest`, a whole body's `Content-Digest`,
    /// `x-goog-hash`), in ``PublishedDigest/stored(_:)`` form: a resumed file is checked against them.
    public var serverDigests: String?

    public init(
        strongETag: String? = nil, weakETag: String? = nil, lastModified: String? = nil, totalLength: Int64? = nil,
        finalURL: String? = nil, serverDigests: String? = nil
    ) {
        self.serverDigests = serverDigests
        self.strongETag = strongETag
        self.weakETag = weakETag
        self.lastModified = lastModified
        self.totalLength = totalLength
        self.finalURL = finalURL
    }

    /// Reads the validators of a `200` or `206` response.
    init(headers: HTTPHeaders, status: Int, totalLength: Int64?, finalURL: String) {
        serverDigests = PublishedDigest.stored(PublishedDigest.fromHeaders(headers, status: status))
        if let tag = headers.first(name: "ETag")?.trimmingSpaces, !tag.isEmpty {
            if tag.hasPrefix("W/") { weakETag = tag } else { strongETag = tag }
        }
        lastModified = headers.first(name: "Last-Modified")
        self.totalLength = totalLength
        self.finalURL = finalURL
    }

    /// True when `tag` (an `ETag` header) differs from the known weak ETag by RFC 9110's weak
    /// comparison: the file changed. False when either is missing.
    func weakETagChanged(to tag: String?) -> Bool {
        guard let weakETag, let tag = tag?.trimmingSpaces, !tag.isEmpty else { return false }
        func opaque(_ t: String) -> Substring { t.hasPrefix("W/") ? t.dropFirst(2) : Substring(t) }
        return opaque(weakETag) != opaque(tag)
    }
}
