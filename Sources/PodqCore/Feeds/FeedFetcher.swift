import FoundationEssentials
import Glibc
import NIOHTTP1
import PodqBase
import PodqHTTP

/// Fetches a feed into a temporary file (never all in memory), with a size cap, redirects, and
/// conditional GET (`If-None-Match` / `If-Modified-Since`).
public struct FeedFetcher: Sendable {
    /// What a fetch brought.
    public enum Outcome: Sendable {
        /// The feed, in a temporary file the caller deletes.
        /// `contentType`: what the server called it (`Content-Type`), for a file that is not a feed.
        case fetched(file: String, finalURL: URL, etag: String?, lastModified: String?, movedPermanently: Bool, contentType: String? = nil)
        /// 304: nothing changed since the validators given.
        case notModified
    }

    let transport: any HTTPTransport
    let sizeLimit: Int64

    public init(transport: any HTTPTransport, sizeLimit: Int64 = FeedParser.defaultSizeLimit) {
        self.transport = transport
        self.sizeLimit = sizeLimit
    }

    /// Fetches `url`; with `etag` or `lastModified`, a 304 answer is ``Outcome/notModified``.
    /// - Parameter trace: receives the URLs visited (redirects included), for the log of a failure.
    /// - Throws: ``FeedError``.
    /// - Parameter access: the podcast's login and `User-Agent` (``PodcastAccess``).
    public func fetch(
        _ url: URL, etag: String? = nil, lastModified: String? = nil, access: PodcastAccess? = nil,
        trace: URLChain? = nil
    ) async throws(FeedError) -> Outcome {
        var headers = HTTPHeaders()
        headers.add(name: "Accept", value: "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5")
        // Feeds are text and compress ten times; a body encoded unasked is decoded all the same.
        headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        if let etag { headers.add(name: "If-None-Match", value: etag) }
        if let lastModified { headers.add(name: "If-Modified-Since", value: lastModified) }
        let path = LexicalPath.join(LexicalPath.temporaryFolder, "podq-feed-\(UUID().uuidString).xml")
        do {
            let result = try await RedirectFollower(transport: transport).send(url: url, headers: headers, decompress: true, access: access, trace: trace)
            let response = result.response
            if response.status == 304 { return .notModified }
            guard response.status == 200 else { throw DownloadError.status(of: response, url: result.finalURL.absoluteString) }
            try DownloadError.checkDecodable(response.headers, url: result.finalURL.absoluteString)
            if let announced = response.headers.first(name: "Content-Length").flatMap(Int64.init), announced > sizeLimit {
                throw FeedError.tooLarge(limit: sizeLimit)
            }
            // An episode's URL given for a feed: said from its head, or its first bytes, never after the
            // whole file came (an hour of audio to learn that it is not a feed).
            if let kind = Self.notAFeed(contentType: response.headers.first(name: "Content-Type")) { throw FeedError.notXML(kind: kind) }
            // A new file of our own (O_EXCL, no link followed), written through its descriptor.
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw DownloadError.fileSystem(path: path, reason: String(cString: strerror(errno))) }
            defer { close(fd) }
            let writer = PartialFileWriter(stream: DescriptorOutputStream(descriptor: fd), path: path)
            var total: Int64 = 0
            var head: [UInt8] = []
            for try await chunk in response.body {
                if head.count < 16 {
                    head += chunk.readableBytesView.prefix(16 - head.count)
                    // (gzip is read further: a feed compressed once more than HTTP's encoding says.)
                    if head.count >= 16, !head.starts(with: [0x1F, 0x8B]), let kind = FeedParser.sniffNotXML(bytes: head) {
                        throw FeedError.notXML(kind: kind)
                    }
                }
                total += Int64(chunk.readableBytes)
                if total > sizeLimit { throw FeedError.tooLarge(limit: sizeLimit) }
                try chunk.withUnsafeReadableBytes { bytes throws(DownloadError) in try writer.write(bytes) }
            }
            writer.close()
            return .fetched(
                file: path, finalURL: result.finalURL, etag: response.headers.first(name: "ETag"),
                lastModified: response.headers.first(name: "Last-Modified"), movedPermanently: result.movedPermanently,
                contentType: response.headers.first(name: "Content-Type"))
        } catch let error as FeedError {
            unlink(path)
            throw error
        } catch let error as DownloadError {
            unlink(path)
            throw .fetch(error, url: url.absoluteString)
        } catch {
            unlink(path)
            throw .fetch(.network(String(describing: error)), url: url.absoluteString)
        }
    }

    /// What a `Content-Type` says the body is when it cannot be a feed (audio, video, an image); nil
    /// for anything a feed may be sent as (XML, text, HTML: a web page that links to its feed, and
    /// the `application/octet-stream` of careless servers, which the first bytes then tell apart).
    static func notAFeed(contentType: String?) -> String? {
        guard let type = contentType?.split(separator: ";").first.map({ String($0).trimmingASCIIWhitespace.lowercased() }) else { return nil }
        for (prefix, kind) in [("audio/", "an audio file"), ("video/", "a video file"), ("image/", "an image")] where type.hasPrefix(prefix) {
            return "\(kind) (it is sent as \(SafeText.clean(type)))"
        }
        return nil
    }
}
