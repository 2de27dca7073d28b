import NIOHTTP1
import PodqBase
import PodqHTTP

/// What makes a segment's answer of another version than the first answer's (docs/FILES.md,
/// "Segmented downloads"): its `Content-Range`, its validator, its whole-file digest. Pure.
enum SegmentAnswer {
    /// What makes a 206 to a segment's request not of the first answer's file, or nil when nothing does.
    static func problem(_ range: ContentRange?, from: Int64, total: Int64, headers: HTTPHeaders, validators: ResourceValidators) -> String? {
        guard let range, let sent = range.range else { return "a part came without a usable Content-Range" }
        if sent.lowerBound != from { return "a part asked from byte \(from) started at \(sent.lowerBound)" }
        if range.total != total { return "a part said the file has \(range.total.map(String.init) ?? "an unknown number of") bytes, not \(total)" }
        if !carriesValidator(headers, of: validators) {
            if let tag = validators.strongETag {
                return headers.first(name: "ETag").map { _ in "a part came with another ETag than \(SafeText.clean(tag))" }
                    ?? "a part came without the ETag \(SafeText.clean(tag))"
            }
            return "a part came without the first answer's Last-Modified"
        }
        // The whole file's digest (Repr-Digest, x-goog-hash) is the same for every part of one version.
        let first = PublishedDigest.parse(stored: validators.serverDigests)
        for digest in PublishedDigest.fromHeaders(headers, status: 206) {
            if let said = first.first(where: { $0.source == digest.source && $0.algorithm == digest.algorithm }), said.bytes != digest.bytes {
                return
                    "a part came with another \(IntegrityVerdict.describe(digest.source).replacingEvery("the server's ", with: "")) than the first answer's"
            }
        }
        return nil
    }

    /// True when `headers` carry the very validator a segment is checked against: the first answer's
    /// strong ETag, else its Last-Modified. A missing one counts as another file.
    static func carriesValidator(_ headers: HTTPHeaders, of validators: ResourceValidators) -> Bool {
        if let tag = validators.strongETag { return headers.first(name: "ETag") == tag }
        if let date = validators.lastModified { return headers.first(name: "Last-Modified") == date }
        return false
    }
}
