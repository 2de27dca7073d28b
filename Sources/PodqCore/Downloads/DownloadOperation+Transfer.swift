import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// The transfer itself: checked resume, redirects, streaming to disk, the length check and the commit.
extension DownloadOperation {
    /// Why a pass ended without a usable body: the next pass starts the file from zero.
    private struct RestartFromZero: Error {}

    func download() async throws {
        let partPath = request.partialPath
        var fromZero = false
        // A restart can take a second request (a 206 or 416 that does not fit); never more than two.
        for _ in 0..<3 {
            try Task.checkCancellation()
            let existing = fromZero ? 0 : Self.fileSize(partPath)
            do {
                try await transfer(partPath: partPath, existing: existing)
                return
            } catch is RestartFromZero {
                fromZero = true
            }
        }
        throw DownloadError.badRange("the server answered three requests in a row with the wrong range")
    }

    private func transfer(partPath: String, existing: Int64) async throws {
        let known = validators
        var headers = HTTPHeaders()
        var requestedStart: Int64 = 0
        var overlap: Int64 = 0
        if existing > 0 {
            if let tag = known?.strongETag {
                requestedStart = existing
                headers.add(name: "If-Range", value: tag)
            } else {
                overlap = min(configuration.overlapWindow, existing)
                requestedStart = existing - overlap
                if let date = known?.lastModified { headers.add(name: "If-Range", value: date) }
            }
            headers.add(name: "Range", value: "bytes=\(requestedStart)-")
        }

        let (response, finalURL) = try await fetch(headers: headers)
        record(contentType: response.headers.first(name: "Content-Type"))
        let contentLength = response.headers.first(name: "Content-Length").flatMap { Int64($0) }
        switch response.status {
        case 200:
            // A fresh body: the file changed, or the server ignores ranges. Start from zero.
            let total = contentLength
            record(validators: ResourceValidators(headers: response.headers, totalLength: total, finalURL: finalURL), resumedAt: nil)
            setProgress(downloaded: 0, expected: .some(total))
            let writer = try PartialFileWriter(partPath: partPath, truncate: true)
            try await stream(response.body, into: writer, expected: total, overlapTail: nil)
            try commit(writer)

        case 206:
            guard let header = response.headers.first(name: "Content-Range"), let range = ContentRange(header),
                let sent = range.range, sent.lowerBound == requestedStart
            else {
                throw RestartFromZero()
            }
            let total = range.total ?? known?.totalLength
            if let known = known?.totalLength, let total, known != total { throw RestartFromZero() }
            if let tag = known?.strongETag, let now = response.headers.first(name: "ETag"), now != tag {
                throw RestartFromZero()
            }
            if existing == 0 && requestedStart != 0 { throw RestartFromZero() }
            var validators = ResourceValidators(headers: response.headers, totalLength: total, finalURL: finalURL)
            if validators.strongETag == nil { validators.strongETag = known?.strongETag }
            let tail = overlap > 0 ? try Self.readTail(of: partPath, count: overlap, fileSize: existing) : nil
            record(validators: validators, resumedAt: existing > 0 ? existing : nil)
            setProgress(downloaded: existing, expected: .some(total))
            let writer = try PartialFileWriter(partPath: partPath, truncate: existing == 0)
            try await stream(response.body, into: writer, expected: total, overlapTail: tail)
            try commit(writer)

        case 416 where existing > 0:
            // Nothing left to send: trust it only if the lengths agree.
            let total = response.headers.first(name: "Content-Range").flatMap(ContentRange.init)?.total
            guard let total, total == existing, known?.totalLength == nil || known?.totalLength == total else {
                throw RestartFromZero()
            }
            setProgress(downloaded: existing, expected: .some(total))
            if known == nil {
                record(validators: ResourceValidators(headers: response.headers, totalLength: total, finalURL: finalURL), resumedAt: existing)
            }
            let writer = try PartialFileWriter(partPath: partPath, truncate: false)
            try commit(writer)

        default:
            let retryAfter = response.headers.first(name: "Retry-After").flatMap(Self.parseRetryAfter)
            throw DownloadError.httpStatus(code: response.status, url: finalURL, retryAfter: retryAfter)
        }
    }

    /// Streams `body` into `writer`, first checking `overlapTail` (the partial's last bytes) against the
    /// start of the body. Throws on a short or long body.
    ///
    /// The chunks are written by ``ResponseBody/forEach(_:)`` on the thread that read them: one
    /// `write(2)` per read, no hop between threads, and the next read waits for the write (a slow disk
    /// slows the connection instead of filling memory).
    private func stream(_ body: ResponseBody, into writer: PartialFileWriter, expected: Int64?,
                        overlapTail: [UInt8]?) async throws {
        let sink = ChunkSink(operation: self, writer: writer, expected: expected, overlapTail: overlapTail ?? [],
                             written: downloadedLength)
        do {
            try await body.forEach { chunk in try sink.take(&chunk) }
        } catch is ChunkSink.OverlapMismatch {
            throw RestartFromZero()
        }
        try Task.checkCancellation()
        // The body ended inside the overlap: the server's file is shorter than the partial one.
        if !sink.overlapChecked { throw RestartFromZero() }
        if let expected, sink.written < expected {
            writer.close()
            throw DownloadError.shortBody(received: sink.written, expected: expected)
        }
    }

    private func commit(_ writer: PartialFileWriter) throws {
        guard beginCommit() else { throw CancellationError() }
        do {
            let path = commitPath()
            try writer.commit(to: path)
            record(finalPath: path)
        } catch {
            endCommit()
            throw error
        }
    }

    /// Sends the request, following redirects (see ``RedirectFollower``); returns the final response and its URL.
    private func fetch(headers: HTTPHeaders) async throws -> (TransportResponse, String) {
        let chain = URLChain()
        record(redirectChain: chain)
        let log = configuration.logger
        log.debug("request", metadata: ["url": "\(request.url.absoluteString)", "range": "\(headers.first(name: "Range") ?? "none")",
                                        "if-range": "\(headers.first(name: "If-Range") ?? "none")"])
        let result = try await RedirectFollower(transport: transport, maxRedirects: configuration.maxRedirects)
            .send(url: request.url, headers: headers, trace: chain)
        let answer = result.response.headers
        log.debug("response", metadata: [
            "status": "\(result.response.status)", "chain": "\(chain.description)",
            "content-length": "\(answer.first(name: "Content-Length") ?? "none")",
            "content-range": "\(answer.first(name: "Content-Range") ?? "none")",
            "etag": "\(answer.first(name: "ETag") ?? "none")",
        ])
        return (result.response, result.finalURL.absoluteString)
    }

    static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0 }
        return Int64(info.st_size)
    }

    static func readTail(of path: String, count: Int64, fileSize: Int64) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw DownloadError.fileSystem(path: path, reason: "cannot read the partial file")
        }
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(fileSize - count))
        let data = try handle.read(upToCount: Int(count)) ?? Data()
        guard data.count == Int(count) else { throw RestartFromZero() }
        return [UInt8](data)
    }

    /// `Retry-After` as seconds: either a number or an HTTP date.
    static func parseRetryAfter(_ value: String) -> Double? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed), seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return max(0, date.timeIntervalSinceNow)
    }
}
