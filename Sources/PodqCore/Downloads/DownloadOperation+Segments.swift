import FoundationEssentials
import Glibc
import NIOCore
import NIOHTTP1
import PodqBase
import PodqHTTP
import Synchronization

/// Segmented downloads: one file over several connections (docs/FILES.md, "Segmented downloads").
///
/// A fresh 200 for a file that may be split (its length known, `Accept-Ranges: bytes`, a strong
/// ETag or a Last-Modified, a host that allows it, and its digest known before its bytes) becomes
/// segment 0 of a ``SegmentMap``, the whole
/// file. Once its first bytes passed the checks, and when half a second of it shows that one
/// connection would still take more than 2 s, other connections cut the far half of what the
/// slowest segment has left and fetch it with `Range` and `If-Range`. Every second the file is synced
/// and then the map saved, so what is saved is on disk: after `kill -9` each segment resumes where its
/// saved count says.
///
/// A file of two versions is never called completed:
/// - every segment's answer must carry the first answer's validator (its strong ETag, else its
///   Last-Modified; a missing one counts as another file), its `Content-Range` start and total, and
///   no whole-file digest other than the first answer's;
/// - every segment's request starts up to `overlapWindow` (64 KiB) before its first byte, and those
///   bytes must equal what the file holds there once it is written (the neighbour's bytes, or the
///   segment's own before a resume) (``SegmentRun/checkLeads()``);
/// - the whole file must match the digest known before its bytes: parts that agree at every seam and
///   differ inside (ad slots of one length filled per request) fail it (``StitchedMismatch``).
///
/// A 206 that breaks either rule is a host whose answers differ per request (ads inserted per
/// download): the host gets one connection per download from then on, the user is told, and the file
/// starts again from zero on one connection. A 200 to a segment's If-Range means the file changed: it
/// starts again from zero (split again, once). A server that ignores ranges for a segment gets the
/// whole file on one connection.
extension DownloadOperation {
    /// The segments to split a fresh body of `total` bytes into; nil to stream it on one connection.
    func segmentation(_ headers: HTTPHeaders, total: Int64?, validators: ResourceValidators, host: String) -> SegmentMap? {
        guard let hosts = configuration.connections, hosts.perDownload > 1, !segmentsRefused, let total,
            total >= 2 * configuration.minimumSegment,
            headers.first(name: "Accept-Ranges")?.lowercased().contains("bytes") == true,
            validators.strongETag != nil || validators.lastModified != nil,
            !hosts.isPolite(host),
            // Only a file whose digest is known before its bytes: a host that fills ads anew per request
            // in slots of the same length, under one ETag, gives parts that agree at every seam and
            // differ inside. The digest, checked before the file is committed, is what proves that the
            // parts are of one version; without one the file comes over one connection.
            digestPass.expected != nil
        else { return nil }
        // One segment to begin with: the first connection reads on to the end unless others come
        // and cut what it has left (``SegmentTable/takeBySplitting(minimum:)``).
        return SegmentMap(segments: [SegmentMap.Segment(start: 0, end: total)], total: total)
    }

    /// Fetches the segments of `table` into `file` over up to `connections.perDownload` connections
    /// and commits the file. `first` is the body of a fresh 200 (segment 0 from byte 0, its first bytes
    /// checked with `firstBytes` before anything else is written); nil resumes a saved map.
    func transferSegments(
        _ table: SegmentTable, into file: PartialFile, first: ResponseBody?, firstBytes: ChunkSink.FirstBytes?,
        url: URL, validators: ResourceValidators
    ) async throws {
        let host = url.host?.lowercased() ?? ""
        let hosts = configuration.connections ?? HostConnections(perDownload: 1, perHost: 1)
        let run = SegmentRun(table: table, file: file, url: url, validators: validators, host: host)
        show(table)
        defer { show(nil) }
        hosts.open(host)
        defer { hosts.close(host) }
        // A resumed map is in the row already. A fresh body is one segment written from byte 0 on: the
        // partial has no hole, and needs no map, until a second connection starts.
        if first == nil { run.mapSaved = true }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                let (passed, gate) = AsyncStream.makeStream(of: Void.self)
                if let first {
                    _ = table.take()  // segment 0, which the fresh body starts
                    group.addTask {
                        defer { gate.finish() }
                        try await self.work(run, first: (first, firstBytes, gate))
                    }
                    for await _ in passed {}
                } else {
                    gate.finish()
                    group.addTask { try await self.work(run, first: nil) }
                }
                var workers = 1
                // More connections only when one would still take a while: a fast link gains nothing
                // from them, and the server is spared.
                let worth = first == nil ? true : await self.worthMoreConnections(table)
                while worth, workers < hosts.perDownload, !Task.isCancelled, hosts.openExtra(host, using: workers) {
                    if !run.mapSaved {
                        // The map is saved before a second connection writes: a partial with holes always has its map.
                        await self.save(segments: table.snapshot)
                        run.mapSaved = true
                    }
                    group.addTask {
                        defer { hosts.close(host) }
                        try await self.work(run, first: nil)
                    }
                    workers += 1
                }
                if run.mapSaved { group.addTask { await self.saveSegmentsPeriodically(run) } }
                for _ in 0..<workers { try await group.next() }
                group.cancelAll()
            }
            // Every place where segments meet is written now: each must have matched.
            try run.checkLeads()
        } catch let disagreement as SegmentsDisagree {
            // The host answers each request with other bytes: one connection from now on, said so.
            hosts.learnOneConnection(host)
            configuration.logger.notice(
                "segments disagree; one connection for this host",
                metadata: ["host": "\(host)", "reason": "\(disagreement.reason)"])
            throw RestartFromZero(
                withoutSegments: true,
                notice: "\(host) answered the parts of this file with different bytes (\(disagreement.reason)); "
                    + "it may insert ads per request: downloading it again from the start over one connection, as every file from \(host) in this run")
        } catch {
            if !(error is RestartFromZero), run.mapSaved { await saveSegments(run) }
            throw error
        }
        guard table.snapshot.isComplete else {
            if run.mapSaved { await saveSegments(run) }
            throw run.quietFailure ?? DownloadError.shortBody(received: table.downloaded, expected: table.total)
        }
        do {
            try await commit(file, length: table.total, stitched: table.snapshot.segments.count > 1)
        } catch let stitched as StitchedMismatch {
            // Parts that matched at every seam and not the digest: the host's answers differ inside.
            hosts.learnOneConnection(host)
            configuration.logger.notice("segments do not make the published file; one connection for this host", metadata: ["host": "\(host)"])
            throw RestartFromZero(
                withoutSegments: true,
                notice: "\(host) answered the parts of this file with different bytes (\(stitched.reason)); "
                    + "it may insert ads per request: downloading it again from the start over one connection, as every file from \(host) in this run")
        }
    }

    /// Watches the first connection for ``DownloadConfiguration/segmentProbe``: true when, at its speed,
    /// what is left would take longer than ``DownloadConfiguration/segmentWhenLonger``.
    private func worthMoreConnections(_ table: SegmentTable) async -> Bool {
        let probe = configuration.segmentProbe
        guard probe > .zero else { return true }
        let before = table.downloaded
        let clock = ContinuousClock()
        let started = clock.now
        // In steps, so a file that is done sooner is not held up.
        while clock.now - started < probe, table.downloaded < table.total, !Task.isCancelled {
            try? await Task.sleep(for: min(probe, .milliseconds(50)))
        }
        let seconds = (clock.now - started) / .seconds(1)
        let rate = Double(table.downloaded - before) / max(0.001, seconds)
        let left = Double(table.total - table.downloaded)
        return left > 0 && (rate <= 0 || left / rate > configuration.segmentWhenLonger)
    }

    /// One connection's work: the fresh body's segment if given, then segments nobody works on, then
    /// the far halves of the slowest ones, until none is left.
    private func work(_ run: SegmentRun, first: (body: ResponseBody, check: ChunkSink.FirstBytes?, gate: AsyncStream<Void>.Continuation)?) async throws {
        run.table.connection(true)
        defer { run.table.connection(false) }
        var fresh = first
        while !Task.isCancelled {
            let slot: Int
            if fresh != nil {
                slot = 0
            } else if let next = run.table.take() ?? run.table.takeBySplitting(minimum: configuration.minimumSegment) {
                slot = next
            } else {
                return
            }
            defer { run.table.release(slot) }
            do {
                if let body = fresh {
                    fresh = nil
                    try await stream(body.body, slot: 0, run: run, requestedEnd: run.table.total, lead: 0, check: body.check, gate: body.gate)
                } else {
                    try await fetch(slot, run: run)
                }
                // A neighbour's lead may have waited for these bytes.
                try run.checkLeads()
            } catch let error as DownloadError where error.isRetryable && run.table.connections > 1 {
                // Another connection goes on and takes this segment over; a busy server gets no more.
                if case .httpStatus(let code, _, _) = error, code == 429 || code == 503 { configuration.connections?.learnOneConnection(run.host) }
                configuration.logger.debug("segment connection ends", metadata: ["reason": "\(ErrorText.describe(error))"])
                run.quiet(error)
                return
            }
        }
    }

    /// Asks for what segment `slot` has left, from up to `overlapWindow` bytes before it (its lead),
    /// checks that the answer is of the first answer's file, and writes it.
    private func fetch(_ slot: Int, run: SegmentRun) async throws {
        let segment = run.table.segment(slot)
        let lead = min(configuration.overlapWindow, segment.position)
        let from = segment.position - lead
        var headers = HTTPHeaders()
        headers.add(name: "Range", value: "bytes=\(from)-\(segment.end - 1)")
        if let tag = run.validators.strongETag {
            headers.add(name: "If-Range", value: tag)
        } else if let date = run.validators.lastModified {
            headers.add(name: "If-Range", value: date)
        }
        headers.add(name: "Accept-Encoding", value: "identity")
        let follower = RedirectFollower(
            transport: transport, maxRedirects: configuration.maxRedirects, logger: configuration.logger,
            pacing: configuration.pacing)
        var result = try await follower.send(url: run.url, headers: headers, access: request.access)
        if [401, 403, 404, 410].contains(result.response.status), run.url != request.url {
            // A resumed map's saved URL (a CDN's signed link) may have expired: the episode's own URL
            // leads to a fresh one, which the other segments then use.
            configuration.logger.debug("segment URL refused; asking the episode's URL again", metadata: ["status": "\(result.response.status)"])
            result = try await follower.send(url: request.url, headers: headers, access: request.access)
            run.url = result.finalURL
        }
        let response = result.response
        let url = result.finalURL.absoluteString
        switch response.status {
        case 206:
            let range = response.headers.first(name: "Content-Range").flatMap(ContentRange.init)
            if let problem = SegmentAnswer.problem(range, from: from, total: run.table.total, headers: response.headers, validators: run.validators) {
                configuration.logger.debug("a segment's answer is of another file", metadata: ["url": "\(url)", "problem": "\(problem)"])
                throw SegmentsDisagree(reason: problem)
            }
            try Self.checkEncoding(response.headers, url: url)
            let before = run.table.segment(slot).done
            try await stream(response.body, slot: slot, run: run, requestedEnd: segment.end, lead: Int(lead), check: nil, gate: nil)
            if run.table.segment(slot).done == before { throw DownloadError.shortBody(received: run.table.downloaded, expected: run.table.total) }
        case 200:
            // If-Range did not hold (the file changed), or the server ignores ranges for this request.
            let same = SegmentAnswer.carriesValidator(response.headers, of: run.validators)
            // A server that ignores ranges gets one connection a download for the rest of the run.
            if same { configuration.connections?.learnOneConnection(run.host) }
            configuration.logger.debug(
                same ? "restart on one connection: the server ignores ranges" : "restart: the file changed",
                metadata: ["url": "\(url)"])
            throw RestartFromZero(withoutSegments: same)
        case 416:
            throw SegmentsDisagree(reason: "a range inside the file was refused as beyond its end")
        default:
            throw DownloadError.status(of: response, url: url)
        }
    }

    /// Writes `body` into segment `slot` through its own `OutputStream` (positional writes) until the
    /// body ends or the segment does (it may have been cut meanwhile).
    /// `lead`: the body's first bytes are those before the segment's position, to compare, not write.
    private func stream(
        _ body: ResponseBody, slot: Int, run: SegmentRun, requestedEnd: Int64, lead: Int, check: ChunkSink.FirstBytes?,
        gate: AsyncStream<Void>.Continuation?
    ) async throws {
        let start = run.table.segment(slot).position
        let writer = PartialFileWriter(stream: run.file.makeOutputStream(at: start), path: run.file.path)
        let sink = SegmentSink(
            operation: self, run: run, slot: slot, writer: writer, requestedEnd: requestedEnd,
            lead: lead, check: check, gate: gate)
        do {
            try await body.forEach { chunk in try sink.take(&chunk) }
            try sink.finish()
        } catch is SegmentSink.Reached {}
        sink.close()
        try Task.checkCancellation()
    }

    private func saveSegmentsPeriodically(_ run: SegmentRun) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: configuration.segmentSaveInterval)
            if Task.isCancelled { return }
            await saveSegments(run)
        }
    }

    /// Takes the counts, syncs the file, then saves the counts: every byte they speak of is on disk.
    /// As the transfer stops (a pause, a quit: its task is cancelled) the save is made all the same,
    /// outside the cancelled task, whose store writes would be refused: the map of a paused download was
    /// up to a second old, and that second was fetched again (issue 41).
    func saveSegments(_ run: SegmentRun) async {
        let map = run.table.snapshot
        guard (try? run.file.sync()) != nil else { return }
        if Task.isCancelled {
            await Task { await self.save(segments: map) }.value
        } else {
            await save(segments: map)
        }
    }
}

/// A segment's answer is not of the first answer's file: another validator, another total, a range
/// elsewhere, or bytes that differ where two segments meet.
struct SegmentsDisagree: Error {
    let reason: String
}

/// What the connections of one segmented transfer share.
final class SegmentRun: Sendable {
    let table: SegmentTable
    let file: PartialFile
    let validators: ResourceValidators
    let host: String
    private let failure = Mutex<DownloadError?>(nil)
    /// Bytes a segment's answer sent before the segment's position, waiting to be compared with the file.
    private let leads = Mutex<[(offset: Int64, bytes: [UInt8])]>([])
    private let currentURL: Mutex<URL>
    private let saved = Mutex(false)

    /// True once the row holds this transfer's map: from then on the file may have holes, and the map
    /// is saved every second and when the transfer stops.
    var mapSaved: Bool {
        get { saved.withLock { $0 } }
        set { saved.withLock { $0 = newValue } }
    }

    init(table: SegmentTable, file: PartialFile, url: URL, validators: ResourceValidators, host: String) {
        self.table = table
        self.file = file
        self.currentURL = Mutex(url)
        self.validators = validators
        self.host = host
    }

    /// Where segments are asked for: the final URL of the first answer.
    var url: URL {
        get { currentURL.withLock { $0 } }
        set { currentURL.withLock { $0 = newValue } }
    }

    /// Keeps the `bytes` an answer sent for `offset…` before its segment, to compare once the file
    /// holds them, and compares what it can at once.
    func addLead(_ bytes: [UInt8], at offset: Int64) throws {
        guard !bytes.isEmpty else { return }
        leads.withLock { $0.append((offset, bytes)) }
        try checkLeads()
    }

    /// Compares each kept lead whose bytes the file now holds with them; throws ``SegmentsDisagree``
    /// at the first difference. A lead whose bytes are not all written yet waits.
    func checkLeads() throws {
        let ready = leads.withLock { leads -> [(offset: Int64, bytes: [UInt8])] in
            var ready: [(offset: Int64, bytes: [UInt8])] = []
            leads.removeAll { lead in
                guard table.isWritten(lead.offset..<lead.offset + Int64(lead.bytes.count)) else { return false }
                ready.append(lead)
                return true
            }
            return ready
        }
        for lead in ready where try file.read(count: lead.bytes.count, at: lead.offset) != lead.bytes {
            throw SegmentsDisagree(reason: "the bytes before byte \(lead.offset + Int64(lead.bytes.count)) differ between two answers")
        }
    }

    /// The last failure a connection ended on while others went on.
    var quietFailure: DownloadError? { failure.withLock { $0 } }
    func quiet(_ error: DownloadError) { failure.withLock { $0 = error } }
}
