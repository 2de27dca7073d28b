import FoundationEssentials
import Glibc
import NIOHTTP1

/// Fetches a small file whole into memory, with a size cap: an episode's transcript, chapters or image
/// (`sidecars`). Redirects as every request; a compressed body is decoded.
public enum SmallFetch {
    /// The file is larger than the cap: it is not fetched (or no more of it).
    public struct TooLarge: Error, LocalizedError {
        public var limit: Int64
        public var errorDescription: String? { "it is larger than \(limit / 1_000_000) MB, the most podq fetches for it" }
    }

    /// The body of `url` and its `Content-Type`.
    /// - Throws: ``TooLarge`` for a body over `limit` bytes; ``DownloadError`` for a status other than
    ///   200, or the network's error.
    public static func get(
        _ url: URL, transport: any HTTPTransport, access: (any HTTPAccess)? = nil,
        limit: Int64
    ) async throws -> (bytes: [UInt8], type: String?) {
        var headers = HTTPHeaders()
        headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        do {
            let result = try await RedirectFollower(transport: transport).send(url: url, headers: headers, decompress: true, access: access)
            let response = result.response
            guard response.status == 200 else { throw DownloadError.status(of: response, url: result.finalURL.absoluteString) }
            try DownloadError.checkDecodable(response.headers, url: result.finalURL.absoluteString)
            if let announced = response.headers.first(name: "Content-Length").flatMap(Int64.init), announced > limit {
                throw TooLarge(limit: limit)
            }
            var bytes: [UInt8] = []
            for try await chunk in response.body {
                guard Int64(bytes.count + chunk.readableBytes) <= limit else { throw TooLarge(limit: limit) }
                bytes += chunk.readableBytesView
            }
            return (bytes, response.headers.first(name: "Content-Type"))
        } catch let error as DownloadError {
            throw error
        } catch let error as TooLarge {
            throw error
        } catch {
            throw DownloadError.network(String(describing: error))
        }
    }
}
