import FoundationEssentials
import Glibc
import Logging
import NIOCore
import NIOHTTP1
import PodqHTTP

/// The transfer itself: checked resume, redirects, streaming to disk, the length check and the commit.
extension DownloadOperation {
    /// Transfers into the claimed `file`, continuing what it holds when the server proves it is the
    /// same file (docs/FILES.md, "Resume rules"), and commits it.
    func download(into file: PartialFile) async throws {
        var fromZero = false
        // A restart can take a second request (a 206 or 416 that does not fit); never more than two.
        for _ in 0..<3 {
            try Task.checkCancellation()
            do {
                if let map = savedSegments {
                    if !fromZero, let (table, validators) = try resumable(map, file) {
                        beginDigest(validators: validators)
                        // Parts are only ever joined under a digest known before them (a map saved by an
                        // older podq may have none): without one, the file starts again on one connection.
                        if digestPass.expected != nil {
                            setProgress(downloaded: map.downloaded, expected: .some(map.total))
                            await record(validators: validators, resumedAt: map.downloaded > 0 ? map.downloaded : nil)
                            let url = validators.finalURL.flatMap(URL.init(string:)) ?? request.url
                            try await transferSegments(table, into: file, first: nil, firstBytes: nil, url: url, validators: validators)
                            return
                        }
                        configuration.logger.notice("restart: a partial in parts with no digest to check them; from zero on one connection")
                        refuseSegments()
                    }
                    // A partial with holes is never resumed as one piece.
                    try await dropSegments(file)
                } else if takeUnreadableSegments() {
                    // A map that cannot be read says holes may be there, not where: start from 0.
                    configuration.logger.debug("restart: the saved segment map cannot be read")
                    try await dropSegments(file)
                }
                let existing = fromZero ? 0 : try file.size()
                try await transfer(into: file, existing: existing)
                return
            } catch let restart as RestartFromZero {
                // A second restart in a row is one connection's: a file that changes at every request
                // (a new ETag each time) would otherwise split, restart and split again.
                if restart.withoutSegments || fromZero { refuseSegments() }
                fromZero = true
                if let notice = restart.notice { await say(notice) }
                if savedSegments != nil { try await dropSegments(file) }
            }
        }
        throw DownloadError.badRange("the server answered three requests in a row with the wrong range")
    }

    /// The saved map as a table to resume, when the validators and the partial allow it.
    private func resumable(_ map: SegmentMap, _ file: PartialFile) throws -> (SegmentTable, ResourceValidators)? {
        guard let known = validators, known.strongETag != nil || known.lastModified != nil, known.totalLength == map.total else { return nil }
        let size = try file.size()
        // pwrite extends the file to the furthest byte written: a shorter one lost what the map counts.
        guard size >= map.segments.map(\.position).max() ?? 0 else { return nil }
        if size > map.total { try file.truncate(to: map.total) }
        return (SegmentTable(map), known)
    }

    /// Empties the partial, then forgets its map (in that order: a map never outlives its bytes unsaved).
    private func dropSegments(_ file: PartialFile) async throws {
        try file.truncate()
        await save(segments: nil)
    }

    private func transfer(into file: PartialFile, existing: Int64) async throws {
        let known = validators
        var headers = HTTPHeaders()
        var requestedStart: Int64 = 0
        var overlap: Int64 = 0
        let vouched = known?.strongETag != nil || known?.lastModified != nil
        if existing > 0 && !vouched && existing < configuration.restartWithoutValidatorBelow {
            // Nothing can prove the partial is the server's file, and it is small: start it again.
            configuration.logger.debug("restart: no validator vouches for the partial", metadata: ["bytes": "\(existing)"])
        } else if existing > 0 {
            if let tag = known?.strongETag {
                requestedStart = existing
                headers.add(name: "If-Range", value: tag)
            } else {
                overlap = min(configuration.overlapWindow, existing)
                requestedStart = existing - overlap
                if let date = known?.lastModified {
                    headers.add(name: "If-Range", value: date)
                } else {
                    // Only the tail would be compared otherwise: compare the head too.
                    try await compareHead(of: file, count: overlap, known: known)
                }
            }
            headers.add(name: "Range", value: "bytes=\(requestedStart)-")
        }

        let (response, finalURL) = try await fetch(headers: headers)
        record(contentType: response.headers.first(name: "Content-Type"))
        if response.status == 200 || response.status == 206 { try Self.checkEncoding(response.headers, url: finalURL) }
        let firstBytes = Self.firstBytesCheck(response.headers, url: finalURL)
        let contentLength = response.headers.first(name: "Content-Length").flatMap { Int64($0) }
        switch response.status {
        case 200:
            // A fresh body: the file changed, or the server ignores ranges. Start from zero.
            let total = contentLength
            if existing > 0 {
                let changed = known.map { !SegmentAnswer.carriesValidator(response.headers, of: $0) } ?? false
                await say(
                    changed
                        ? "the file changed on the server since its first \(existing) bytes were downloaded: it starts again from zero"
                        : "the server sent the whole file instead of the rest (it does not resume downloads): it starts again from zero")
            }
            // The partial is emptied by the sink once the first bytes passed (``ChunkSink/FirstBytes``).
            setProgress(downloaded: 0, expected: .some(total))
            let fresh = ResourceValidators(headers: response.headers, status: Int(response.status), totalLength: total, finalURL: finalURL)
            await record(validators: fresh, resumedAt: nil)
            beginDigest(validators: fresh)
            if let url = URL(string: finalURL), let map = segmentation(response.headers, total: total, validators: fresh, host: url.host ?? "") {
                try await transferSegments(SegmentTable(map), into: file, first: response.body, firstBytes: firstBytes, url: url, validators: fresh)
                return
            }
            let written = try await stream(response.body, into: file, expected: total, overlapTail: nil, firstBytes: firstBytes, emptyFirst: true)
            try await commit(file, length: written)

        case 206:
            let changed = RestartFromZero(notice: "the server's answer to the resume is of another version of the file: it starts again from zero")
            guard let header = response.headers.first(name: "Content-Range"), let range = ContentRange(header),
                let sent = range.range, sent.lowerBound == requestedStart
            else {
                throw RestartFromZero(notice: "the server answered the resume with another range than asked: it starts again from zero")
            }
            let total = range.total ?? known?.totalLength
            if let known = known?.totalLength, let total, known != total { throw changed }
            // The validator the resume was asked with must come back: a missing one counts as changed.
            if let tag = known?.strongETag, response.headers.first(name: "ETag") != tag { throw changed }
            if known?.weakETagChanged(to: response.headers.first(name: "ETag")) == true { throw changed }
            if existing == 0 && requestedStart != 0 { throw RestartFromZero() }
            var validators = ResourceValidators(headers: response.headers, status: Int(response.status), totalLength: total, finalURL: finalURL)
            if validators.strongETag == nil { validators.strongETag = known?.strongETag }
            if validators.strongETag == nil && validators.weakETag == nil { validators.weakETag = known?.weakETag }
            if validators.serverDigests == nil { validators.serverDigests = known?.serverDigests }
            let tail = overlap > 0 ? try file.read(count: Int(overlap), at: existing - overlap) : nil
            try file.truncate(to: existing)
            setProgress(downloaded: existing, expected: .some(total))
            await record(validators: validators, resumedAt: existing > 0 ? existing : nil)
            // The resumed prefix is hashed once, now; the body's bytes as they are written.
            try beginDigest(validators: validators).catchUp(file, to: existing)
            // The file's first bytes are looked at only when they are in this body.
            let written = try await stream(
                response.body, into: file, expected: total, overlapTail: tail,
                firstBytes: requestedStart == 0 ? firstBytes : nil)
            try await commit(file, length: written)

        case 416 where existing > 0:
            // Nothing left to send: trust it only if the lengths agree.
            let total = response.headers.first(name: "Content-Range").flatMap(ContentRange.init)?.total
            guard let total, total == existing, known?.totalLength == nil || known?.totalLength == total else {
                throw RestartFromZero()
            }
            setProgress(downloaded: existing, expected: .some(total))
            if known == nil {
                await record(
                    validators: ResourceValidators(headers: response.headers, status: Int(response.status), totalLength: total, finalURL: finalURL),
                    resumedAt: existing)
            }
            beginDigest(validators: validators)
            try await commit(file, length: existing)

        default:
            throw DownloadError.status(of: response, url: finalURL)
        }
    }

    /// Fetches the first `count` bytes and compares them with the partial's; a difference (or a server
    /// that cannot send them, or a changed weak ETag) means the partial is not the server's file.
    private func compareHead(of file: PartialFile, count: Int64, known: ResourceValidators?) async throws {
        var headers = HTTPHeaders()
        headers.add(name: "Range", value: "bytes=0-\(count - 1)")
        let (response, _) = try await fetch(headers: headers)
        guard response.status == 206, let header = response.headers.first(name: "Content-Range"),
            ContentRange(header)?.range?.lowerBound == 0,
            known?.weakETagChanged(to: response.headers.first(name: "ETag")) != true
        else { throw RestartFromZero() }
        var received: [UInt8] = []
        for try await chunk in response.body {
            received += chunk.readableBytesView
            if received.count >= count { break }
        }
        let local = try file.read(count: Int(count), at: 0)
        guard received.count >= local.count, received.prefix(local.count).elementsEqual(local) else {
            configuration.logger.debug("restart: the partial's first bytes differ from the server's")
            throw RestartFromZero(notice: "the server's first bytes differ from the partial file's: the file changed, and it starts again from zero")
        }
    }

    /// Streams `body` into `file` through its `OutputStream`, first checking `overlapTail` (the
    /// partial's last bytes) against the start of the body. Returns the file's length as written;
    /// throws on a short or long body.
    ///
    /// The chunks are written by ``ResponseBody/forEach(_:)`` on the thread that read them: one
    /// `write(2)` per read, no hop between threads, and the next read waits for the write (a slow disk
    /// slows the connection instead of filling memory).
    private func stream(
        _ body: ResponseBody, into file: PartialFile, expected: Int64?, overlapTail: [UInt8]?,
        firstBytes: ChunkSink.FirstBytes? = nil, emptyFirst: Bool = false
    ) async throws -> Int64 {
        let sink = ChunkSink(
            operation: self, writer: PartialFileWriter(file: file), expected: expected,
            overlapTail: overlapTail ?? [], written: downloadedLength, firstBytes: firstBytes,
            emptyFirst: emptyFirst ? file : nil)
        do {
            try await body.forEach { chunk in try sink.take(&chunk) }
        } catch is ChunkSink.OverlapMismatch {
            throw RestartFromZero(notice: "the server's bytes differ from the partial file's end: the file changed, and it starts again from zero")
        }
        try sink.finish()
        sink.close()
        try Task.checkCancellation()
        // The body ended inside the overlap: the server's file is shorter than the partial one.
        if !sink.overlapChecked { throw RestartFromZero() }
        let written = sink.written
        if let expected, written < expected {
            throw DownloadError.shortBody(received: written, expected: expected)
        }
        return written
    }

    /// Gives the file its final name once it holds `length` bytes (``PartialFile/commit(length:names:record:)``).
    /// - Parameter stitched: more than one connection wrote the file: a mismatch with its digest is
    ///   a ``StitchedMismatch`` (its parts are of different versions), never a file kept unverified.
    func commit(_ file: PartialFile, length: Int64, stitched: Bool = false) async throws {
        try Task.checkCancellation()
        try await verifyIntegrity(file, length: length, stitched: stitched)
        guard beginCommit() else { throw CancellationError() }
        do {
            let hooks = self.hooks
            let committed = try await file.commit(length: length, names: commitNames()) { identity, path in
                await hooks.willCommit(identity, path)
            }
            record(finalPath: committed.path)
        } catch {
            endCommit()
            throw error
        }
    }

    /// Refuses a body still encoded (`Content-Encoding: gzip`) although podq asked for it as it is.
    static func checkEncoding(_ headers: HTTPHeaders, url: String) throws(DownloadError) {
        if let encoding = headers.first(name: "Content-Encoding")?.trimmingASCIIWhitespace.lowercased(), !encoding.isEmpty, encoding != "identity" {
            throw .encodedBody(encoding: encoding, url: url)
        }
    }

    /// What the body's first bytes must show for its `Content-Type` (``ChunkSink/FirstBytes``): a
    /// body labelled a web page must prove it is media; one labelled as nothing in particular must not
    /// be a web page; one labelled audio or video (or anything else) is taken as it says.
    static func firstBytesCheck(_ headers: HTTPHeaders, url: String) -> ChunkSink.FirstBytes? {
        switch mediaType(headers) {
        case "text/html", "application/xhtml+xml": .mustBeMedia(url: url)
        case "", "application/octet-stream", "binary/octet-stream", "text/plain": .mustNotBeWebPage(url: url)
        default: nil
        }
    }

    /// The `Content-Type` without its parameters, in lower case ("" when there is none).
    private static func mediaType(_ headers: HTTPHeaders) -> String {
        let full = headers.first(name: "Content-Type") ?? ""
        return String(full.prefix { $0 != ";" }).trimmingASCIIWhitespace.lowercased()
    }

    /// Sends the request, following redirects (see ``RedirectFollower``); returns the final response and its URL.
    private func fetch(headers: HTTPHeaders) async throws -> (TransportResponse, String) {
        var headers = headers
        // The file as it is: a byte count must match the server's, and a range is of the file's bytes.
        headers.replaceOrAdd(name: "Accept-Encoding", value: "identity")
        // RFC 9530: a server that can says the whole file's hash, checked before the file is committed.
        headers.replaceOrAdd(name: "Want-Repr-Digest", value: "sha-256=5, sha-512=3")
        let chain = URLChain()
        record(redirectChain: chain)
        let log = configuration.logger
        log.debug(
            "request",
            metadata: [
                "url": "\(request.url.absoluteString)", "range": "\(headers.first(name: "Range") ?? "none")",
                "if-range": "\(headers.first(name: "If-Range") ?? "none")",
            ])
        let result = try await RedirectFollower(
            transport: transport, maxRedirects: configuration.maxRedirects, logger: log,
            pacing: configuration.pacing
        )
        .send(url: request.url, headers: headers, access: request.access, trace: chain)
        let answer = result.response.headers
        log.debug(
            "response",
            metadata: [
                "status": "\(result.response.status)", "chain": "\(chain.description)",
                "content-length": "\(answer.first(name: "Content-Length") ?? "none")",
                "content-range": "\(answer.first(name: "Content-Range") ?? "none")",
                "etag": "\(answer.first(name: "ETag") ?? "none")",
            ])
        return (result.response, result.finalURL.absoluteString)
    }
}
