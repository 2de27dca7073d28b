import PodqHTTP
import PodqTestAssertions
import PodqTestSupport
import XCTest

@testable import PodqCore

/// `DownloadOperation` against the real in-process server, over loopback: every route.
final class DownloadOperationTests: XCTestCase {
    var server: TestServer!
    var dir: TemporaryDirectory!
    private var transport: AsyncHTTPTransport!

    override func setUp() async throws {
        server = try await TestServer.start()
        dir = TemporaryDirectory()
        transport = AsyncHTTPTransport(stallTimeout: .milliseconds(700))
    }

    override func tearDown() async throws {
        await transport.shutdown()
        await server.stop()
        dir.remove()
    }

    private func operation(_ url: URL, name: String = "f.bin", validators: ResourceValidators? = nil) -> DownloadOperation {
        DownloadOperation(
            id: 1, request: DownloadRequest(url: url, destination: dir.file(name), title: name, validators: validators),
            transport: transport)
    }

    /// Runs a download to its end and returns it with every progress value it published.
    func run(_ url: URL, name: String = "f.bin", validators: ResourceValidators? = nil) async -> (DownloadOperation, [DownloadProgress]) {
        let op = operation(url, name: name, validators: validators)
        let (recorder, token) = op.recordProgress()
        await op.start()
        token.cancel()
        return (op, recorder.values)
    }

    private func assertMonotonic(_ values: [DownloadProgress], endingAt expected: Int64, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(values.last?.downloadedLength, expected, "the final value is delivered", file: file, line: line)
        for (a, b) in zip(values, values.dropFirst()) {
            XCTAssertLessThanOrEqual(a.downloadedLength, b.downloadedLength, "progress never goes back", file: file, line: line)
        }
    }

    private func writePartial(_ name: String, seed: UInt64, size: Int64, count: Int) {
        let bytes = PatternSource(seed: seed, length: size).bytes(count: count)
        _ = FileManager.default.createFile(atPath: dir.file(name + ".part"), contents: Data(bytes))
    }

    // MARK: - Bodies

    func testBodyWithContentLength() async throws {
        let size: Int64 = 3_000_000
        let (op, progress) = await run(server.dataURL(size: size, seed: 7))
        XCTAssertEqual(op.state, .completed)
        XCTAssertEqual(FileHash.sha256(path: dir.file("f.bin")), PatternSource(seed: 7, length: size).sha256)
        XCTAssertEqual(dir.contents, ["f.bin"], "no partial file is left")
        XCTAssertEqual(progress.first, DownloadProgress(downloadedLength: 0, expectedLength: nil), "the initial value")
        XCTAssertEqual(progress.last, DownloadProgress(downloadedLength: size, expectedLength: size))
        assertMonotonic(progress, endingAt: size)
        XCTAssertEqual(op.validators?.strongETag, "\"7-\(size)\"")
        XCTAssertEqual(op.validators?.totalLength, size)
        XCTAssertEqual(server.log.requests.first?.header("User-Agent"), AsyncHTTPTransport.defaultUserAgent)
    }

    func testChunkedBodyWithoutLength() async throws {
        let size: Int64 = 1_500_000
        let (op, progress) = await run(server.dataURL(size: size, seed: 3, ["chunked": "1"]))
        XCTAssertEqual(op.state, .completed)
        XCTAssertNil(op.expectedLength)
        XCTAssertTrue(progress.allSatisfy { $0.expectedLength == nil })
        XCTAssertEqual(FileHash.sha256(path: dir.file("f.bin")), PatternSource(seed: 3, length: size).sha256)
        assertMonotonic(progress, endingAt: size)
    }

    // MARK: - Resume

    func testResumeSendsRangeAndIfRangeAndFetchesOnlyTheRest() async throws {
        let size: Int64 = 3_000_000
        writePartial("f.bin", seed: 1, size: size, count: 1_000_000)
        let validators = ResourceValidators(strongETag: "\"1-\(size)\"", totalLength: size)
        let (op, progress) = await run(server.dataURL(size: size, seed: 1), validators: validators)
        XCTAssertEqual(op.state, .completed)
        XCTAssertEqual(op.resumedAt, 1_000_000)
        XCTAssertEqual(FileHash.sha256(path: dir.file("f.bin")), PatternSource(seed: 1, length: size).sha256)
        let request = try XCTUnwrap(server.log.requests.first)
        XCTAssertEqual(request.header("Range"), "bytes=1000000-")
        XCTAssertEqual(request.header("If-Range"), "\"1-\(size)\"")
        XCTAssertEqual(server.log.outcomes[request.sequence]?.bytesSent, 2_000_000, "nothing valid is fetched twice")
        assertMonotonic(progress, endingAt: size)
        // The resumed megabyte is on disk, not bytes that came now: no speed is measured on it (a
        // meter fed `downloadedLength` read 6x the link's speed just after a resume).
        XCTAssertEqual(progress.last?.resumedFrom, 1_000_000)
        XCTAssertEqual(progress.last?.transferred, 2_000_000)
        XCTAssertTrue(progress.allSatisfy { $0.transferred <= 2_000_000 })
    }

    func testChangedContentFailsIfRangeAndRestartsFromZero() async throws {
        let size: Int64 = 400_000
        let old = TestServer.changingSource(name: "ep", version: 1, size: size)
        _ = FileManager.default.createFile(atPath: dir.file("f.bin.part"), contents: Data(old.bytes(count: 100_000)))
        server.setVersion("ep", 2)
        let url = server.url("/changing/ep?size=\(size)")
        let (op, _) = await run(url, validators: ResourceValidators(strongETag: "\"ep-v1\"", totalLength: size))
        XCTAssertEqual(op.state, .completed)
        XCTAssertNil(op.resumedAt)
        XCTAssertEqual(server.log.requests.first?.header("If-Range"), "\"ep-v1\"")
        XCTAssertEqual(FileHash.sha256(path: dir.file("f.bin")), TestServer.changingSource(name: "ep", version: 2, size: size).sha256)
        XCTAssertEqual(op.validators?.strongETag, "\"ep-v2\"")
    }

    func testServerThatIgnoresRangeRestartsFromZero() async throws {
        let size: Int64 = 500_000
        writePartial("f.bin", seed: 4, size: size, count: 200_000)
        let url = server.dataURL(size: size, seed: 4, ["ranges": "ignore"])
        let (op, progress) = await run(url, validators: ResourceValidators(strongETag: "\"4-\(size)\"", totalLength: size))
        XCTAssertEqual(op.state, .completed)
        XCTAssertEqual(server.log.requests.first?.header("Range"), "bytes=200000-")
        XCTAssertEqual(FileHash.sha256(path: dir.file("f.bin")), PatternSource(seed: 4, length: size).sha256)
        XCTAssertEqual(progress.last?.downloadedLength, size)
    }

    func testResumeWithoutValidatorComparesTheHeadAndTheTail() async throws {
        let size: Int64 = 3_000_000
        writePartial("f.bin", seed: 5, size: size, count: 1_500_000)
        let (op, _) = await run(server.dataURL(size: size, seed: 5, ["etag": "none", "lastmod": "none"]))
        XCTAssertEqual(op.state, .completed)
        XCTAssertEqual(server.log.requests.map { $0.header("Range") }, ["bytes=0-65535", "bytes=\(1_500_000 - 65_536)-"])
        XCTAssertEqual(op.resumedAt, 1_500_000)
        XCTAssertEqual(FileHash.sha256(path: dir.file("f.bin")), PatternSource(seed: 5, length: size).sha256)
    }

    func testStalePartialWithoutValidatorIsDetectedAndRestarted() async throws {
        let size: Int64 = 3_000_000
        writePartial("f.bin", seed: 99, size: size, count: 1_500_000)  // same length, other bytes
        let (op, _) = await run(server.dataURL(size: size, seed: 6, ["etag": "none", "lastmod": "none"]))
        XCTAssertEqual(op.state, .completed)
        XCTAssertEqual(server.log.requests.count, 2, "the head mismatch costs one more request")
        XCTAssertNil(server.log.requests.last?.header("Range"))
        XCTAssertEqual(FileHash.sha256(path: dir.file("f.bin")), PatternSource(seed: 6, length: size).sha256)
    }

    func testAPartialChangedOnlyAtItsStartIsNeverResumedOnAWeakETag() async throws {
        // The server's file changed in its first bytes since the partial was written; its weak ETag
        // did not (weak tags stay through changes their server calls equivalent). The tail overlap
        // alone would pass and the file would be a mix of two versions.
        let size: Int64 = 3_000_000
        var bytes = PatternSource(seed: 11, length: size).bytes(count: 1_500_000)
        for i in 0..<1000 { bytes[i] ^= 0xFF }
        _ = FileManager.default.createFile(atPath: dir.file("f.bin.part"), contents: Data(bytes))
        let url = server.dataURL(size: size, seed: 11, ["etag": "weak", "lastmod": "none"])
        let (op, _) = await run(url, validators: ResourceValidators(weakETag: "W/\"11-\(size)\"", totalLength: size))
        XCTAssertEqual(op.state, .completed)
        XCTAssertNil(op.resumedAt)
        XCTAssertEqual(FileHash.sha256(path: dir.file("f.bin")), PatternSource(seed: 11, length: size).sha256)
    }

    func testAChangedWeakETagRestartsAndASmallUnvouchedPartialStartsAgain() async throws {
        let size: Int64 = 3_000_000
        writePartial("f.bin", seed: 12, size: size, count: 1_500_000)
        let url = server.dataURL(size: size, seed: 12, ["etag": "weak", "lastmod": "none"])
        let (op, _) = await run(url, validators: ResourceValidators(weakETag: "W/\"an-older-version\"", totalLength: size))
        XCTAssertEqual(op.state, .completed)
        XCTAssertNil(op.resumedAt, "a different weak ETag proves the file changed")
        XCTAssertNil(server.log.requests.last?.header("Range"))

        writePartial("g.bin", seed: 13, size: 600_000, count: 300_000)
        let before = server.log.requests.count
        let (small, _) = await run(server.dataURL(size: 600_000, seed: 13, ["etag": "none", "lastmod": "none"]), name: "g.bin")
        XCTAssertEqual(small.state, .completed)
        XCTAssertNil(small.resumedAt)
        XCTAssertEqual(server.log.requests.count - before, 1)
        XCTAssertNil(server.log.requests.last?.header("Range"), "300 KB with nothing to vouch for it: fetched again whole")
        XCTAssertEqual(FileHash.sha256(path: dir.file("g.bin")), PatternSource(seed: 13, length: 600_000).sha256)
    }

    func test416WithMatchingLengthCompletesWithoutABody() async throws {
        let size: Int64 = 100_000
        writePartial("f.bin", seed: 8, size: size, count: Int(size))
        let (op, _) = await run(server.dataURL(size: size, seed: 8), validators: ResourceValidators(strongETag: "\"8-\(size)\"", totalLength: size))
        XCTAssertEqual(op.state, .completed)
        XCTAssertEqual(server.log.requests.count, 1)
        XCTAssertEqual(server.log.totalBytesSent, 0)
        XCTAssertEqual(FileHash.sha256(path: dir.file("f.bin")), PatternSource(seed: 8, length: size).sha256)
    }

    func test416WithOtherLengthRestarts() async throws {
        let size: Int64 = 100_000
        writePartial("f.bin", seed: 8, size: size + 5000, count: Int(size) + 5000)
        let (op, _) = await run(server.dataURL(size: size, seed: 8), validators: ResourceValidators(strongETag: "\"8-\(size)\""))
        XCTAssertEqual(op.state, .completed)
        XCTAssertEqual(server.log.requests.map { $0.header("Range") }, ["bytes=105000-", nil])
        XCTAssertEqual(FileHash.sha256(path: dir.file("f.bin")), PatternSource(seed: 8, length: size).sha256)
    }

    // MARK: - Statuses

    func testNotFoundIsAPermanentFailure() async throws {
        let (op, _) = await run(server.url("/status/404"))
        guard case .failed = op.state else { return XCTFail("expected failed, got \(op.state)") }
        XCTAssertEqual(op.error?.isRetryable, false)
        XCTAssertEqual(op.error, .httpStatus(code: 404, url: server.url("/status/404").absoluteString, retryAfter: nil))
        XCTAssertEqual(dir.contents, [], "nothing is written for an error page")
    }

    func testServerErrorIsTemporary() async throws {
        let (op, _) = await run(server.url("/status/500"))
        XCTAssertEqual(op.error?.isRetryable, true)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("f.bin")))
    }

    func testRetryAfterIsDigitsOrAnHTTPDateAndAtMostAYear() {
        // FuzzHeaders: `inf` and `1e400` were seconds (and each date built a DateFormatter, which leaks).
        XCTAssertEqual(RetryAfter.seconds(" 120 "), 120)
        for bad in ["inf", "nan", "1e9", "-3", "12s", "", "0x10"] { XCTAssertNil(RetryAfter.seconds(bad), bad) }
        XCTAssertEqual(RetryAfter.seconds("99999999999999999999999"), 365 * 86_400)
        let inAnHour = Date().addingTimeInterval(3_600)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let seconds = RetryAfter.seconds(formatter.string(from: inAnHour)) ?? 0
        XCTAssertTrue((3_590...3_601).contains(seconds), "\(seconds)")
        XCTAssertEqual(RetryAfter.seconds("Wed, 21 Oct 2015 07:28:00 GMT"), 0, "a date gone by: now")
    }

    func test503CarriesRetryAfter() async throws {
        let (op, _) = await run(server.url("/status/503?retryAfter=7"))
        XCTAssertEqual(op.error?.retryAfter, 7)
        XCTAssertEqual(op.error?.isRetryable, true)
        XCTAssertTrue(op.state.name == "failed" && (op.error?.localizedDescription.contains("wait 7 s") ?? false))
    }

    // MARK: - Redirects

    func testRedirectChainIsFollowedAndTheFinalURLRemembered() async throws {
        let target = "/data/r.bin?size=5000&seed=2"
        let (op, _) = await run(server.url("/redirect/10?to=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"))
        XCTAssertEqual(op.state, .completed, "10 redirects are allowed")
        XCTAssertEqual(op.redirectChain.count, 11)
        XCTAssertEqual(op.validators?.finalURL, server.url(target).absoluteString)
        XCTAssertEqual(FileHash.sha256(path: dir.file("f.bin")), PatternSource(seed: 2, length: 5000).sha256)
    }

    func testTooManyRedirects() async throws {
        let (op, _) = await run(server.url("/redirect/11"))
        guard case .tooManyRedirects(let limit, _) = op.error else { return XCTFail("\(String(describing: op.error))") }
        XCTAssertEqual(limit, 10)
        XCTAssertEqual(server.log.requests.count, 11)
    }

    func testRedirectLoop() async throws {
        let (op, _) = await run(server.url("/loop/a"))
        XCTAssertEqual(op.error, .redirectLoop(url: server.url("/loop/a").absoluteString))
        XCTAssertEqual(op.error?.isRetryable, false)
        XCTAssertEqual(
            op.redirectChain, ["/loop/a", "/loop/b", "/loop/a"].map { server.url($0).absoluteString },
            "a failure part-way still names every URL, for the log")
    }

    func testRedirectToANonHTTPScheme() async throws {
        let (op, _) = await run(server.url("/redirect-scheme"))
        XCTAssertEqual(op.error, .redirectToUnsupportedScheme("ftp://127.0.0.1/episode.mp3"))
        XCTAssertEqual(op.redirectChain.last, "ftp://127.0.0.1/episode.mp3")
    }

    func testNonHTTPURLIsRefusedWithoutAConnection() async throws {
        let (op, _) = await run(URL(string: "file:///etc/passwd")!)
        XCTAssertEqual(op.error, .unsupportedScheme("file:///etc/passwd"))
        XCTAssertEqual(dir.contents, [])
    }

    // MARK: - Faults

    func testDroppedConnectionKeepsThePartialAndTheNextRunResumesIt() async throws {
        let size: Int64 = 1_000_000
        // The server pauses before it drops, so that the client has read the 100,000 bytes even on a busy
        // machine (it would lose whatever was still buffered when the connection broke).
        let url = server.dataURL(size: size, seed: 9, ["dropFirst": "100000", "stallFirst": "100000:0.5"])
        let (first, _) = await run(url)
        guard case .failed = first.state else { return XCTFail("expected failed, got \(first.state)") }
        XCTAssertEqual(first.error?.isRetryable, true, "\(String(describing: first.error))")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("f.bin")), "a short body never becomes a final file")
        // What the client wrote is kept.
        let kept = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: dir.file("f.bin.part"))[.size] as? Int64)
        XCTAssertEqual(kept, first.downloadedLength)
        XCTAssertGreaterThan(kept, 0)
        XCTAssertLessThanOrEqual(kept, 100_000)

        let (second, progress) = await run(url, validators: first.validators)
        XCTAssertEqual(second.state, .completed)
        XCTAssertEqual(second.resumedAt, kept)
        let resume = try XCTUnwrap(server.log.requests.last)
        XCTAssertEqual(resume.header("Range"), "bytes=\(kept)-")
        XCTAssertEqual(server.log.outcomes[resume.sequence]?.bytesSent, size - kept, "no byte on disk is fetched again")
        XCTAssertEqual(FileHash.sha256(path: dir.file("f.bin")), PatternSource(seed: 9, length: size).sha256)
        assertMonotonic(progress, endingAt: size)
    }

    func testServerThatSendsLessThanItAnnouncesFails() async throws {
        let (op, _) = await run(server.dataURL(size: 200_000, seed: 1, ["lie": "300000"]))
        guard case .failed = op.state else { return XCTFail("expected failed, got \(op.state)") }
        XCTAssertEqual(op.error?.isRetryable, true)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("f.bin")))
    }

    func testThrottledBodyPublishesCoalescedProgress() async throws {
        let size: Int64 = 300_000
        let started = Date()
        let (op, progress) = await run(server.dataURL(size: size, seed: 2, ["rate": "250000"]))
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(op.state, .completed)
        XCTAssertGreaterThanOrEqual(progress.count, 5, "a slow download shows its bar advancing")
        XCTAssertLessThanOrEqual(progress.count, Int(elapsed * 20) + 5, "at most ~20 notifications a second")
        assertMonotonic(progress, endingAt: size)
    }

    func testStallAbortsTheAttemptAndKeepsThePartial() async throws {
        let (op, _) = await run(server.dataURL(size: 200_000, seed: 1, ["stall": "50000:5"]))
        guard case .stalled = op.error else { return XCTFail("expected a stall, got \(String(describing: op.error))") }
        XCTAssertEqual(op.error?.isRetryable, true)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: dir.file("f.bin.part"))[.size] as? Int64, 50_000)
    }

    func testConnectionRefusedIsTemporary() async throws {
        // A port held by a socket that is bound and never listens: refused for sure.
        let refused = RefusedPort()
        let port = refused.port
        await transport.shutdown()
        transport = AsyncHTTPTransport(connectTimeout: .milliseconds(300))
        let (op, _) = await run(URL(string: "http://127.0.0.1:\(port)/data/x")!)
        XCTAssertEqual(op.error, .connectionRefused(address: "127.0.0.1:\(port)"))
        XCTAssertEqual(op.error?.isRetryable, true)
        XCTAssertEqual(op.error?.attemptCap, 1, "tried once, not for all of max-attempts (as curl and wget)")
        withExtendedLifetime(refused) {}
    }

    // MARK: - Control

    func testCancelStopsTheTransferAndDeletesThePartial() async throws {
        let op = operation(server.dataURL(size: 50_000_000, seed: 1, ["rate": "2000000"]))
        let running = Task { await op.start() }
        let some = await waitUntil(every: 5) { op.downloadedLength >= 100_000 }
        XCTAssertTrue(some)
        op.cancel()
        let state = await running.value
        XCTAssertEqual(state, .cancelled)
        XCTAssertEqual(dir.contents, [], "the partial file it held is deleted")
        await expect(timeout: 1, every: 5) { !server.log.outcomes.isEmpty }
        let outcome = try XCTUnwrap(server.log.outcomes.values.first)
        XCTAssertFalse(outcome.completed)
        XCTAssertLessThan(outcome.bytesSent, 50_000_000)
    }

    func testPauseKeepsThePartialAndARestartResumesIt() async throws {
        let size: Int64 = 2_000_000
        let url = server.dataURL(size: size, seed: 11, ["rate": "1000000"])
        let op = operation(url)
        let running = Task { await op.start() }
        let more = await waitUntil(every: 5) { op.downloadedLength >= 200_000 }
        XCTAssertTrue(more)
        op.pause()
        let state = await running.value
        XCTAssertEqual(state, .paused)
        let kept = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: dir.file("f.bin.part"))[.size] as? Int64)
        XCTAssertEqual(kept, op.downloadedLength)
        XCTAssertTrue(op.requeue())
        let resumed = await op.start()
        XCTAssertEqual(resumed, .completed)
        XCTAssertEqual(server.log.requests.last?.header("Range"), "bytes=\(kept)-")
        XCTAssertEqual(FileHash.sha256(path: dir.file("f.bin")), PatternSource(seed: 11, length: size).sha256)
    }

    /// Cancelled before it starts, it never connects, and it leaves an earlier attempt's partial (which
    /// it never held) to its owner.
    func testCancelBeforeStartNeverConnects() async throws {
        _ = FileManager.default.createFile(atPath: dir.file("f.bin.part"), contents: Data("earlier".utf8))
        let op = operation(server.dataURL(size: 1000))
        op.cancel()
        let state = await op.start()
        XCTAssertEqual(state, .cancelled)
        XCTAssertTrue(server.log.requests.isEmpty)
        XCTAssertEqual(dir.contents, ["f.bin.part"], "not its to delete")
    }
}

extension DownloadOperationTests {
    func testANameWithoutExtensionTakesOneFromTheContentType() async throws {
        let (op, _) = await run(server.dataURL(size: 1000, seed: 1, name: "download", ["type": "audio/mp4"]), name: "download")
        XCTAssertEqual(op.state, .completed)
        XCTAssertEqual(op.finalPath, dir.file("download.m4a"))
        XCTAssertEqual(dir.contents, ["download.m4a"])
        let (kept, _) = await run(server.dataURL(size: 1000, seed: 1, name: "x.mp3", ["type": "audio/mp4"]), name: "x.mp3")
        XCTAssertEqual(kept.finalPath, dir.file("x.mp3"), "an extension from the URL wins")
    }
}
