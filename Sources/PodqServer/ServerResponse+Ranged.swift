import FoundationEssentials
import Glibc

/// Range requests, as a file server answers them: the demo's episodes and the tests' routes.
extension ServerResponse {
    /// A 200, 206 or 416 for `source`, following `Range` (`bytes=N-`, `bytes=N-M`) and `If-Range`
    /// (an ETag or a date that no longer matches gets the whole body).
    /// - Parameter ignoreRanges: answer every request with the whole body, as a server without ranges does.
    public static func ranged(
        _ request: ServerRequest, source: any ServerBodySource, etag: String?, lastModified: String?,
        ignoreRanges: Bool = false, type: String
    ) -> ServerResponse {
        var headers: [(name: String, value: String)] = [("Content-Type", type), ("Accept-Ranges", ignoreRanges ? "none" : "bytes")]
        if let etag { headers.append(("ETag", etag)) }
        if let lastModified { headers.append(("Last-Modified", lastModified)) }
        let size = source.length
        let full = ServerResponse(status: 200, headers: headers, body: .source(source, range: 0..<size))
        guard !ignoreRanges, let range = request.header("Range"), let (start, last) = parseRange(range) else { return full }
        if let condition = request.header("If-Range") {
            let matches = condition.hasPrefix("\"") ? condition == etag : condition == lastModified
            if !matches { return full }
        }
        guard start < size else {
            return ServerResponse(status: 416, headers: headers + [("Content-Range", "bytes */\(size)")])
        }
        let end = min(last ?? (size - 1), size - 1)
        guard end >= start else { return full }
        return ServerResponse(
            status: 206, headers: headers + [("Content-Range", "bytes \(start)-\(end)/\(size)")],
            body: .source(source, range: start..<(end + 1)))
    }

    /// `bytes=N-` or `bytes=N-M` as (N, M); nil for anything else (suffix ranges, several ranges).
    public static func parseRange(_ header: String) -> (start: Int64, last: Int64?)? {
        let text = header.trimmingSpaces
        guard text.hasPrefix("bytes="), !text.contains(",") else { return nil }
        let spec = text.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard spec.count == 2, let start = Int64(spec[0].trimmingSpaces) else { return nil }
        let lastText = spec[1].trimmingSpaces
        if lastText.isEmpty { return (start, nil) }
        guard let last = Int64(lastText) else { return nil }
        return (start, last)
    }
}
