import PodqCore
import PodqTestSupport
import Synchronization
import XCTest

/// ``DownloadOperation`` over the in-memory transport: what it saves and when, and what it does when
/// the disk changes under it between two chunks. (DownloadOperationTests covers the wire, over loopback.)
final class DownloadOperationMemoryTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUp() { dir = TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    private static let bytes = PatternSource(seed: 5, length: 10_000).bytes(count: 10_000)
    private static let tag = ("ETag", "\"v1\"")
    private var bytes: [UInt8] { Self.bytes }

    /// What the hooks heard, in order, as text.
    private final class Heard: Sendable {
        let lines = Recorder<String>()
        var hooks: DownloadHooks {
            DownloadHooks(
                save: { event in
                    switch event {
                    case .claimed(let destination): self.lines.append("claimed \((destination as NSString).lastPathComponent)")
                    case .responded(let validators, let resumedAt):
                        self.lines.append("responded \(validators.strongETag ?? "-") \(resumedAt.map(String.init) ?? "-")")
                    case .segments(let map): self.lines.append("segments \(map?.text ?? "none")")
                    case .verified(let integrity): self.lines.append("verified \(integrity.verifiedBy)")
                    case .notice(let text): self.lines.append("notice \(text)")
                    }
                },
                willCommit: { identity, path in
                    self.lines.append("commit \((path as NSString).lastPathComponent) \(identity.size)")
                })
        }
    }

    private func operation(
        _ transport: MemoryTransport, name: String = "ep.mp3", validators: ResourceValidators? = nil,
        heard: Heard = Heard()
    ) -> DownloadOperation {
        DownloadOperation(
            id: 1,
            request: DownloadRequest(
                url: URL(string: "http://h/\(name)")!, destination: dir.file(name), title: name,
                validators: validators, folder: dir.path),
            transport: transport, hooks: heard.hooks)
    }

    private func contents(_ name: String) -> [UInt8]? { FileManager.default.contents(atPath: dir.file(name)).map { [UInt8]($0) } }

    func testWhatTheOwnerSavesComesInOrderAndBeforeTheBytesItSpeaksOf() async throws {
        let heard = Heard()
        let savedBeforeBody = Mutex(false)
        let transport = MemoryTransport { _, _ in
            var reply = MemoryTransport.Reply.ok(Self.bytes, chunkSize: 4000, headers: [Self.tag])
            reply.beforeChunk = { index in
                if index == 0 { savedBeforeBody.withLock { $0 = heard.lines.values == ["responded \"v1\" -"] } }
            }
            return reply
        }
        let op = operation(transport, heard: heard)
        let state = await op.start()
        XCTAssertEqual(state, .completed)
        XCTAssertTrue(savedBeforeBody.withLock { $0 }, "the validators were saved before the first byte was written")
        XCTAssertEqual(heard.lines.values, ["responded \"v1\" -", "verified length", "commit ep.mp3 10000"])
        XCTAssertEqual(contents("ep.mp3"), bytes)
        XCTAssertEqual(dir.contents, ["ep.mp3"])
        XCTAssertEqual(op.finalPath, dir.file("ep.mp3"))
    }

    func testAResumeContinuesOnlyWhatTheServerProvesIsTheSameFile() async throws {
        _ = FileManager.default.createFile(atPath: dir.file("ep.mp3.part"), contents: Data(bytes[..<6000]))
        let heard = Heard()
        let transport = MemoryTransport { request, _ in
            request.headers.first(name: "Range") == "bytes=6000-" ? .partial(Self.bytes, from: 6000, headers: [Self.tag]) : .ok([])
        }
        let op = operation(transport, validators: ResourceValidators(strongETag: "\"v1\"", totalLength: 10_000), heard: heard)
        let state = await op.start()
        XCTAssertEqual(state, .completed)
        XCTAssertEqual(transport.requests.values.first?.headers.first(name: "If-Range"), "\"v1\"")
        XCTAssertEqual(heard.lines.values.first, "responded \"v1\" 6000")
        XCTAssertEqual(contents("ep.mp3"), bytes)

        // A 206 from elsewhere than asked: the partial is not trusted, and the file starts again.
        let other = TemporaryDirectory()
        defer { other.remove() }
        _ = FileManager.default.createFile(atPath: other.file("x.part"), contents: Data(repeating: 0, count: 6000))
        let wrong = MemoryTransport { request, number in
            number == 0 ? .partial(Self.bytes, from: 5000) : .ok(Self.bytes, headers: [Self.tag])
        }
        let restarted = DownloadOperation(
            id: 2,
            request: DownloadRequest(
                url: URL(string: "http://h/x")!, destination: other.file("x"),
                title: "x", validators: ResourceValidators(strongETag: "\"v1\"")),
            transport: wrong)
        let restartedState = await restarted.start()
        XCTAssertEqual(restartedState, .completed)
        XCTAssertEqual(wrong.requests.values.count, 2)
        XCTAssertNil(wrong.requests.values[1].headers.first(name: "Range"), "the second request starts from zero")
        XCTAssertEqual(FileManager.default.contents(atPath: other.file("x")).map { [UInt8]($0) }, bytes)
    }

    func testMoreBytesThanAnnouncedAreRefusedAndFewerAreKeptForAResume() async throws {
        var lying = MemoryTransport.Reply.ok(bytes)
        lying.headers = [("Content-Length", "5000")]
        let long = operation(MemoryTransport { [lying] _, _ in lying })
        let longState = await long.start()
        XCTAssertEqual(long.error, .bodyTooLong(expected: 5000))
        guard case .failed = longState else { return XCTFail("\(longState)") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("ep.mp3")), "never given its final name")

        var short = MemoryTransport.Reply.ok(bytes)
        short.chunks = [Array(bytes[..<3000])]
        let cut = operation(MemoryTransport { [short] _, _ in short }, name: "cut.mp3")
        _ = await cut.start()
        XCTAssertEqual(cut.error, .shortBody(received: 3000, expected: 10_000))
        XCTAssertEqual(contents("cut.mp3.part"), Array(bytes[..<3000]), "what arrived is kept for a resume")
    }

    /// The destination's partial held by another podq: this one takes the next free name, saves it
    /// before writing, and leaves the other's file alone.
    func testAPartialAnotherProcessHoldsSendsThisDownloadToAFreeName() async throws {
        let folder = try DownloadFolder(path: dir.path)
        let held = try XCTUnwrap(folder.claim("ep.mp3"))
        defer { held.close() }
        let heard = Heard()
        let op = operation(MemoryTransport { _, _ in .ok(Self.bytes) }, heard: heard)
        let state = await op.start()
        XCTAssertEqual(state, .completed)
        XCTAssertEqual(heard.lines.values.first, "claimed ep (2).mp3")
        XCTAssertEqual(op.finalPath, dir.file("ep (2).mp3"))
        XCTAssertEqual(contents("ep (2).mp3"), bytes)
        XCTAssertEqual(contents("ep.mp3.part"), [], "the other's partial is untouched")
    }

    func testAFileAtTheDestinationIsNeverReplaced() async throws {
        _ = FileManager.default.createFile(atPath: dir.file("ep.mp3"), contents: Data("mine".utf8))
        let op = operation(MemoryTransport { _, _ in .ok(Self.bytes) })
        let state = await op.start()
        XCTAssertEqual(state, .completed)
        XCTAssertEqual(op.finalPath, dir.file("ep (2).mp3"))
        XCTAssertEqual(contents("ep.mp3"), Array("mine".utf8))
        XCTAssertEqual(contents("ep (2).mp3"), bytes)
    }

    /// Another program appends to the partial mid-transfer, past where podq's writes will end: the
    /// file's own size gives it away at the commit (a byte counter would not), and nothing of it is kept.
    func testBytesAnotherProgramWritesIntoThePartialAreCaught() async throws {
        let path = dir.file("ep.mp3.part")
        var reply = MemoryTransport.Reply.ok(bytes, chunkSize: 2500)
        reply.beforeChunk = { index in
            guard index == 2, let other = FileHandle(forWritingAtPath: path) else { return }
            other.seekToEndOfFile()
            other.write(Data(repeating: 0x21, count: 6000))
            try? other.close()
        }
        let op = operation(MemoryTransport { [reply] _, _ in reply })
        let state = await op.start()
        guard case .partialChanged = op.error else { return XCTFail("\(state) \(String(describing: op.error))") }
        XCTAssertTrue(op.error?.isRetryable ?? false, "the next attempt starts again")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("ep.mp3")))
        XCTAssertEqual(contents("ep.mp3.part") ?? [], [], "nothing of it is resumed")
    }

    /// The partial's name is swapped for a link mid-transfer: the write stays on podq's own file and
    /// the link is neither written through nor renamed.
    func testAPartialSwappedForALinkIsNeitherWrittenThroughNorCommitted() async throws {
        let outside = dir.file("outside.txt")
        _ = FileManager.default.createFile(atPath: outside, contents: Data("keep".utf8))
        let part = dir.file("ep.mp3.part")
        var reply = MemoryTransport.Reply.ok(bytes, chunkSize: 2500)
        reply.beforeChunk = { index in
            guard index == 1 else { return }
            rename(part, part + ".moved")
            symlink(outside, part)
        }
        let op = operation(MemoryTransport { [reply] _, _ in reply })
        _ = await op.start()
        guard case .partialChanged = op.error else { return XCTFail("\(String(describing: op.error))") }
        XCTAssertEqual(contents("outside.txt"), Array("keep".utf8))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("ep.mp3")))
        XCTAssertEqual(contents("ep.mp3.part.moved"), bytes, "every byte went to the claimed file")
    }

    func testCancelDeletesTheClaimedPartialAndPauseKeepsIt() async throws {
        for (name, stop) in [("c.mp3", true), ("p.mp3", false)] {
            let reached = Mutex<DownloadOperation?>(nil)
            var reply = MemoryTransport.Reply.ok(bytes, chunkSize: 2500)
            reply.beforeChunk = { index in
                guard index == 2, let op = reached.withLock({ $0 }) else { return }
                if stop { op.cancel() } else { op.pause() }
            }
            let op = operation(MemoryTransport { [reply] _, _ in reply }, name: name)
            reached.withLock { $0 = op }
            let state = await op.start()
            XCTAssertEqual(state, stop ? .cancelled : .paused)
            XCTAssertEqual(FileManager.default.fileExists(atPath: dir.file(name + ".part")), !stop, name)
        }
    }
}
