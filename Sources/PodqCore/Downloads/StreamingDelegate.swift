import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// AsyncHTTPClient's delegate for one request: hands the response head to an `async` caller, then
/// delivers the body either to a sink on the network thread (``ResponseBody/forEach(_:)``: no thread
/// hop per chunk, as curl's single loop) or chunk by chunk to an async iterator.
///
/// Backpressure: the client reads nothing of the body until a consumer attaches; a sink runs before
/// the next read, and an iterator's chunk is released when the next one is asked for. A body dropped
/// without being read to the end cancels the request, so a connection is never left half read.
final class StreamingDelegate: HTTPClientResponseDelegate, BodySource, @unchecked Sendable {
    typealias Response = Void
    typealias Sink = @Sendable (inout ByteBuffer) throws -> Void

    private enum Consumer {
        case none
        case sink(Sink, CheckedContinuation<Void, any Error>?)
        case iterator
    }

    private let lock = NSLock()
    private var task: HTTPClient.Task<Void>?
    private var cancelRequested = false
    private var head: CheckedContinuation<HTTPResponseHead, any Error>?
    /// Completed when a consumer attaches; the client reads the body only after that.
    private var attached: EventLoopPromise<Void>?
    private var consumer = Consumer.none
    /// The end of the body: nil while it streams.
    private var ended: Result<Void, any Error>?
    /// The iterator's chunk waiting to be taken, and the promise that releases the client's next read.
    private var pending: ByteBuffer?
    private var release: EventLoopPromise<Void>?
    private var waiter: CheckedContinuation<ByteBuffer?, any Error>?
    private var sinkError: (any Error)?
    private let mapError: @Sendable (any Error, Bool) -> any Error
    private let rateLimiter: RateLimiter?

    init(rateLimiter: RateLimiter? = nil, mapError: @escaping @Sendable (any Error, Bool) -> any Error) {
        self.rateLimiter = rateLimiter
        self.mapError = mapError
    }

    /// Starts `request` and returns its head.
    func start(_ request: HTTPClient.Request, on client: HTTPClient) async throws -> HTTPResponseHead {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponseHead, any Error>) in
                lock.withLock { head = continuation }
                let task = client.execute(request: request, delegate: self, eventLoop: .indifferent)
                let cancel = lock.withLock {
                    self.task = task
                    return cancelRequested
                }
                if cancel { task.cancel() }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Cancels the request; a waiting consumer gets `CancellationError`.
    func cancel() {
        let task: HTTPClient.Task<Void>? = lock.withLock {
            cancelRequested = true
            return self.task
        }
        task?.cancel()
    }

    /// Called when the body is dropped: cancels the request unless it ended.
    func abandon() {
        let open = lock.withLock { ended == nil }
        if open { cancel() }
    }

    // MARK: BodySource

    func forEach(_ sink: @escaping Sink) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (start, end): (EventLoopPromise<Void>?, Result<Void, any Error>?) = lock.withLock {
                    if let ended { return (nil, ended) }
                    guard case .none = consumer else { return (nil, .failure(DownloadError.network("the body was read twice"))) }
                    consumer = .sink(sink, continuation)
                    defer { attached = nil }
                    return (attached, nil)
                }
                if let end { continuation.resume(with: end) } else { start?.succeed() }
            }
        } onCancel: {
            cancel()
        }
    }

    func next() async throws -> ByteBuffer? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ByteBuffer?, any Error>) in
                enum Step { case chunk(ByteBuffer), end(Result<Void, any Error>), wait }
                var promises: [EventLoopPromise<Void>] = []
                let step: Step = lock.withLock {
                    if case .none = consumer {
                        consumer = .iterator
                        if let attached { promises.append(attached) }
                        attached = nil
                    }
                    // Asking for the next chunk lets the client read the one after.
                    if let release { promises.append(release) }
                    release = nil
                    if let chunk = pending {
                        pending = nil
                        return .chunk(chunk)
                    }
                    if let ended { return .end(ended) }
                    waiter = continuation
                    return .wait
                }
                promises.forEach { $0.succeed() }
                switch step {
                case .chunk(let chunk): continuation.resume(returning: chunk)
                case .end(let result): continuation.resume(with: result.map { nil })
                case .wait: break
                }
            }
        } onCancel: {
            cancel()
        }
    }

    // MARK: HTTPClientResponseDelegate (called on the connection's event loop)

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let promise = task.eventLoop.makePromise(of: Void.self)
        let continuation = lock.withLock {
            attached = promise
            defer { self.head = nil }
            return self.head
        }
        continuation?.resume(returning: head)
        return promise.futureResult
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let sink: Sink? = lock.withLock {
            if case .sink(let sink, _) = consumer { return sink }
            return nil
        }
        if let sink {
            var chunk = buffer
            do {
                try sink(&chunk)
                // The speed limit: the next read waits for this chunk's turn on the shared schedule.
                if let rateLimiter, case let wait = rateLimiter.delay(afterReceiving: buffer.readableBytes), wait > 0 {
                    return task.eventLoop.scheduleTask(in: .nanoseconds(Int64(wait))) {}.futureResult
                }
                return task.eventLoop.makeSucceededVoidFuture()
            } catch {
                lock.withLock { sinkError = error }
                task.cancel()
                return task.eventLoop.makeFailedFuture(error)
            }
        }
        let promise = task.eventLoop.makePromise(of: Void.self)
        let waiting: CheckedContinuation<ByteBuffer?, any Error>? = lock.withLock {
            release = promise
            guard let waiter else {
                pending = buffer
                return nil
            }
            self.waiter = nil
            return waiter
        }
        waiting?.resume(returning: buffer)
        return promise.futureResult
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        finish(.failure(error))
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        finish(.success(()))
    }

    /// Records the end and wakes whoever waits: the head's caller, the sink's or the iterator's.
    private func finish(_ result: Result<Void, any Error>) {
        var promises: [EventLoopPromise<Void>] = []
        let (head, sink, waiter, end): (CheckedContinuation<HTTPResponseHead, any Error>?, CheckedContinuation<Void, any Error>?,
                                        CheckedContinuation<ByteBuffer?, any Error>?, Result<Void, any Error>) = lock.withLock {
            let beforeHead = self.head != nil
            let end: Result<Void, any Error> = result.mapError { error in
                if let sinkError { return sinkError }
                if cancelRequested, case .none = consumer, !beforeHead { return CancellationError() }
                return mapError(error, !beforeHead)
            }
            ended = end
            if let attached { promises.append(attached) }
            if let release { promises.append(release) }
            attached = nil
            release = nil
            var sink: CheckedContinuation<Void, any Error>?
            if case .sink(let s, let continuation) = consumer {
                sink = continuation
                consumer = .sink(s, nil)
            }
            defer {
                self.head = nil
                self.waiter = nil
            }
            return (self.head, sink, self.waiter, end)
        }
        // Promises are completed, never leaked; the client ignores them once the request ended.
        promises.forEach { $0.succeed() }
        if case .failure(let error) = end { head?.resume(throwing: error) }
        sink?.resume(with: end)
        waiter?.resume(with: end.map { nil })
    }
}

/// Where a ``ResponseBody`` reads from when it is not a plain async sequence.
protocol BodySource: AnyObject, Sendable {
    /// The next chunk, or nil at the end.
    func next() async throws -> ByteBuffer?
    /// Hands every chunk to `sink` in order on the thread that read it; returns at the end.
    func forEach(_ sink: @escaping @Sendable (inout ByteBuffer) throws -> Void) async throws
    /// The body was dropped.
    func abandon()
}
