import FoundationEssentials
import Glibc
import NIOCore
import NIOHTTP1

/// One request: a GET as the download engine sends it, or (sync) a POST with a body.
public struct TransportRequest: Sendable {
    /// The URL to fetch; http or https.
    public var url: URL
    /// GET, unless a sync request posts (`POST`, `PUT`).
    public var method: HTTPMethod = .GET
    /// What a POST or PUT sends; nil for none.
    public var body: [UInt8]?
    /// Extra headers (`Range`, `If-Range`, …).
    public var headers: HTTPHeaders
    /// True for a feed: a gzip or deflate body is decoded (and may be asked for). Media is never
    /// decoded: its byte count must match the server's and a range is of the file's bytes.
    public var decompress: Bool
    /// The speed limit this request's body is read under: a download's policy (the `rate-limit` the
    /// downloads share, ``DownloadConfiguration/pacing``), handed to its sink. Nil for feeds, web pages
    /// and sidecars: downloads are paced, feeds are not.
    public var pacing: RateLimiter?
    /// When the whole fetch began, for a request that decodes its body: `fetch-timeout` bounds the
    /// fetch from there, redirects included, so a later hop has only what is left. Nil: from this request.
    public var fetchStarted: ContinuousClock.Instant?

    public init(url: URL, headers: HTTPHeaders = [:], decompress: Bool = false, pacing: RateLimiter? = nil) {
        self.url = url
        self.headers = headers
        self.decompress = decompress
        self.pacing = pacing
    }
}

/// The head of a response and its body, which is read chunk by chunk with backpressure.
public struct TransportResponse: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// The response headers.
    public var headers: HTTPHeaders
    /// The body; iterating it pulls the next chunk from the network. Not iterating it stops reading.
    public var body: ResponseBody

    public init(status: Int, headers: HTTPHeaders, body: ResponseBody) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// The seam between the download engine and HTTP: the live one is ``AsyncHTTPTransport``; a unit test
/// can feed bytes through its own.
///
/// Implementations do not follow redirects: ``DownloadOperation`` follows them itself so it can count
/// them, refuse loops and non-HTTP schemes, and remember the final URL.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns once the response head has arrived.
    /// - Throws: ``DownloadError`` for failures a person should see, `CancellationError` when cancelled.
    func send(_ request: TransportRequest) async throws -> TransportResponse
}

/// A response body as an async sequence of `ByteBuffer`s, read once.
///
/// Iterate it, or hand every chunk to a sink with ``forEach(_:)``: the live transport then runs the
/// sink on the thread that read the chunk, with no hop between threads per chunk.
public struct ResponseBody: AsyncSequence, Sendable {
    public typealias Element = ByteBuffer

    private let makeIterator: @Sendable () -> AsyncIterator
    private let source: SourceBox?

    /// Wraps any sendable sequence of buffers; iteration keeps the wrapped sequence's backpressure.
    public init<Base: AsyncSequence & Sendable>(_ base: Base) where Base.Element == ByteBuffer {
        self.makeIterator = { AsyncIterator(IteratorBox(base.makeAsyncIterator())) }
        self.source = nil
    }

    /// A body read from `source`; dropping every copy before the end abandons it.
    init(source: any BodySource) {
        let box = SourceBox(source)
        self.source = box
        self.makeIterator = { AsyncIterator(SourceIterator(box)) }
    }

    /// An empty body.
    public static var empty: ResponseBody { ResponseBody(EmptyBody()) }

    public func makeAsyncIterator() -> AsyncIterator { makeIterator() }

    /// Calls `sink` with every chunk in order and returns at the end of the body. `sink` may run on
    /// another thread, one chunk at a time; a thrown error stops the transfer and is rethrown here.
    public func forEach(_ sink: @escaping @Sendable (inout ByteBuffer) throws -> Void) async throws {
        if let source {
            try await source.source.forEach(sink)
            return
        }
        for try await var chunk in self {
            try sink(&chunk)
        }
    }

    /// Pulls the next chunk.
    public struct AsyncIterator: AsyncIteratorProtocol {
        fileprivate let box: any NextProviding
        fileprivate init(_ box: any NextProviding) { self.box = box }
        public mutating func next() async throws -> ByteBuffer? { try await box.next() }
    }
}

/// Abandons the source when the last copy of the body (and its iterators) is gone.
private final class SourceBox: Sendable {
    let source: any BodySource
    init(_ source: any BodySource) { self.source = source }
    deinit { source.abandon() }
}

private final class SourceIterator: NextProviding {
    let box: SourceBox
    init(_ box: SourceBox) { self.box = box }
    func next() async throws -> ByteBuffer? { try await box.source.next() }
}

fileprivate protocol NextProviding: AnyObject {
    func next() async throws -> ByteBuffer?
}

private final class IteratorBox<Base: AsyncIteratorProtocol>: NextProviding where Base.Element == ByteBuffer {
    var base: Base
    init(_ base: Base) { self.base = base }
    func next() async throws -> ByteBuffer? { try await base.next() }
}

private struct EmptyBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    struct AsyncIterator: AsyncIteratorProtocol {
        mutating func next() async throws -> ByteBuffer? { nil }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
}
