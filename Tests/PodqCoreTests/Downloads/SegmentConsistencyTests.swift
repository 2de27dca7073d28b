import Foundation
import PodqHTTP
import PodqServer
import PodqTestAssertions
import PodqTestSupport
import Synchronization
import XCTest

@testable import PodqCore

/// A segmented download never stitches two versions of a file: every segment's answer must carry the
/// first answer's validator (a missing one counts as changed), and the bytes where two segments meet
/// must agree. A host whose answers differ per request gets the file over one connection, said so;
/// and however often its segments lie, a download always ends.
final class SegmentConsistencyTests: XCTestCase {
    var server: TestServer!
    var dir: TemporaryDirectory!
    private var transport: AsyncHTTPTransport!
    private let size: Int64 = 1 << 20

    override func setUp() async throws {
        server = try await TestServer.start()
        dir = TemporaryDirectory()
        transport = AsyncHTTPTransport(stallTimeout: .seconds(5), responseTimeout: .seconds(5))
    }

    override func tearDown() async throws {
        await transport.shutdown()
        await server.stop()
        dir.remove()
    }

    /// Splits from the first answer on, into segments of at least 64 KiB, over 4 connections.
    private func configuration(_ hosts: HostConnections) -> DownloadConfiguration {
        var configuration = DownloadConfiguration(connections: hosts)
        configuration.minimumSegment = 64 * 1024
        configuration.segmentProbe = .zero
        configuration.segmentSaveInterval = .milliseconds(50)
        return configuration
    }

    /// Runs one download of `url`; fails the test if it has not ended after `seconds`.
    private func download(
        _ url: URL, name: String, hosts: HostConnections, notes: Recorder<String>? = nil,
        published: [PublishedDigest] = [], seconds: Double = 60
    ) async throws -> DownloadOperation {
        let hooks = DownloadHooks(save: { event in
            if case .notice(let text) = event { notes?.append(text) }
        })
        var request = DownloadRequest(url: url, destination: dir.file(name), title: name)
        request.publishedDigests = published
        let op = DownloadOperation(
            id: 1, request: request,
            transport: transport, configuration: configuration(hosts), hooks: hooks)
        // A download that never ends (the issue's hang) fails the test instead of hanging it.
        let ended = Atomic<Bool>(false)
        Task {
            await op.start()
            ended.store(true, ordering: .releasing)
        }
        await expect(timeout: Double(seconds)) { ended.load(ordering: .acquiring) }
        XCTAssertTrue(ended.load(ordering: .acquiring), "\(name) never ended (a wait nothing ends): \(String(describing: op.segments))")
        return op
    }

    /// The bytes request `n` of `/data?seed=S&vary=1` served.
    private func version(_ n: Int, seed: UInt64 = 5) -> PatternSource { PatternSource(seed: seed + UInt64(n), length: size) }

    func testAHostThatInsertsAdsPerRequestUnderOneETagGetsOneVersionOverOneConnection() async throws {
        let url = server.dataURL(size: size, seed: 5, name: "ads.mp3", ["vary": "1", "etag": "fixed", "rate": "2000000", "digest": "repr"])
        let hosts = HostConnections(perDownload: 4, perHost: 4)
        let notes = Recorder<String>()
        let op = try await download(url, name: "ads.mp3", hosts: hosts, notes: notes)
        XCTAssertEqual(op.state, .completed, op.error?.localizedDescription ?? "")
        let hash = FileHash.sha256(path: dir.file("ads.mp3"))
        let served = server.log.requests.filter { $0.path == "/data/ads.mp3" }.count
        XCTAssertTrue((0..<served).contains { version($0).sha256 == hash }, "the file is one version a request served, whole")
        XCTAssertTrue(hosts.isPolite("127.0.0.1"), "the host gets one connection a download from now on")
        XCTAssertTrue(notes.values.contains { $0.contains("one connection") }, "and it is said: \(notes.values)")
    }

    /// The version request `n` of a `slots=6` URL served: six 16-byte slots filled with `n`.
    private func slotted(_ n: Int, seed: UInt64, size: Int64) -> [UInt8] {
        SlottedSource(seed: seed, length: size, slots: 6, fill: UInt8(n)).bytes()
    }

    /// Issue 43: a host that fills same-length ad slots anew per request, away from every seam, under
    /// one strong ETag. The seams agree, the validators agree: only a digest known before the bytes can
    /// tell. Without one the file comes over one connection (one request, one version); with the
    /// publisher's, a stitched file fails it and comes again over one connection; with the server's own
    /// per answer, the parts' digests disagree at once. In no case is a file of several answers kept.
    func testAHostThatFillsAdSlotsPerRequestNeverGivesAFileOfSeveralAnswers() async throws {
        let size: Int64 = 4 << 20
        for (round, kind) in ["none", "publisher", "server"].enumerated() {
            server.log.reset()
            let seed = UInt64(70 + round)
            let name = "slots-\(kind).mp3"
            var options = ["slots": "6", "etag": "fixed", "rate": "3000000"]
            if kind == "server" { options["digest"] = "repr" }
            let url = server.dataURL(size: size, seed: seed, name: name, options)
            let hosts = HostConnections(perDownload: 4, perHost: 4)
            let notes = Recorder<String>()
            // The publisher's hash is of the first answer's version: what a stitched file cannot match.
            let published =
                kind == "publisher"
                ? [PublishedDigest(source: .sri, algorithm: .sha256, bytes: SlottedSource(seed: seed, length: size, slots: 6, fill: 0).sha256)] : []
            let op = try await download(url, name: name, hosts: hosts, notes: notes, published: published)
            XCTAssertEqual(op.state, .completed, "\(kind): \(op.error?.localizedDescription ?? "")")
            let file = try XCTUnwrap(FileManager.default.contents(atPath: dir.file(name)), kind)
            let served = server.log.requests.filter { $0.path == "/data/\(name)" }.count
            XCTAssertTrue(
                (0..<served).contains { Data(slotted($0, seed: seed, size: size)) == file }, "\(kind): the file is one answer's, whole (\(served) requests)")
            switch kind {
            case "none":
                XCTAssertEqual(served, 1, "no digest: one connection, one request")
            default:
                XCTAssertGreaterThan(served, 2, "\(kind): it was split, then fetched again")
                XCTAssertTrue(hosts.isPolite("127.0.0.1"), "\(kind): the host gets one connection from now on")
                XCTAssertTrue(notes.values.contains { $0.contains("one connection") }, "\(kind): said: \(notes.values)")
                XCTAssertNil(server.log.requests.last?.header("Range"), "\(kind): the last request fetched the whole file")
            }
        }
    }

    func testEachKindOfLyingRangeAnswerEndsWithTheFirstAnswersFile() async throws {
        for lie in ["etag", "noetag", "total", "start"] {
            server.log.reset()
            // noetag: other bytes too, under no ETag.
            let options = ["segmentLie": lie, "rate": "2000000", "lastmod": "none", "digest": "repr"].merging(
                lie == "noetag" ? ["vary": "1", "etag": "fixed"] : [:]
            ) { $1 }
            let url = server.dataURL(size: size, seed: 7, name: "\(lie).mp3", options)
            let hosts = HostConnections(perDownload: 4, perHost: 4)
            let op = try await download(url, name: "\(lie).mp3", hosts: hosts)
            XCTAssertEqual(op.state, .completed, "\(lie): \(op.error?.localizedDescription ?? "")")
            let first = lie == "noetag" ? version(0, seed: 7) : PatternSource(seed: 7, length: size)
            let hash = FileHash.sha256(path: dir.file("\(lie).mp3"))
            if lie == "noetag" {
                let served = server.log.requests.count
                XCTAssertTrue((0..<served).contains { version($0, seed: 7).sha256 == hash }, "\(lie): one version, whole")
            } else {
                XCTAssertEqual(hash, first.sha256, "\(lie): the file is the first answer's")
            }
            XCTAssertTrue(hosts.isPolite("127.0.0.1"), lie)
        }
    }

    /// The issue's hang: hundreds of downloads whose segments are answered as another file must each
    /// end (the watchdog would pause one that does not, and the test says so).
    func testHundredsOfDownloadsWhoseSegmentsLieAllEnd() async throws {
        let lies = ["etag", "total", "start", "noetag"]
        for round in 0..<120 {
            let lie = lies[round % lies.count]
            let url = server.dataURL(
                size: 512 * 1024, seed: UInt64(round), name: "r\(round).mp3",
                ["segmentLie": lie, "rate": "4000000", "vary": "1", "etag": "fixed", "digest": "repr"])
            // A fresh host table each time: the fallback to one connection is per run, so every round splits.
            let op = try await download(url, name: "r\(round).mp3", hosts: HostConnections(perDownload: 4, perHost: 4), seconds: 30)
            XCTAssertEqual(op.state, .completed, "round \(round) (\(lie)): \(op.error?.localizedDescription ?? "")")
        }
    }
}
