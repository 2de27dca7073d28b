import PodqCore
import PodqHTTP
import PodqTestSupport
import XCTest

/// The one owner of the download folder: what it refuses, how a claim excludes others, and how a
/// commit never replaces a file.
final class DownloadFolderTests: XCTestCase {
    private var dir: TemporaryDirectory!
    private var folder: DownloadFolder!

    override func setUpWithError() throws {
        dir = TemporaryDirectory()
        folder = try DownloadFolder(path: dir.file("downloads"))
    }

    override func tearDown() { dir.remove() }

    private func refused(_ body: () throws -> Any?, naming path: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertEqual(error as? DownloadError, .symlinkRefused(path: path), file: file, line: line)
        }
    }

    func testAClaimMakesTheFoldersAndThePartial() throws {
        let file = try XCTUnwrap(folder.claim("Show/One.mp3"))
        defer { file.close() }
        XCTAssertEqual(file.path, dir.file("downloads/Show/One.mp3.part"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("downloads/Show/One.mp3.part")))
        XCTAssertEqual(try file.size(), 0)
    }

    /// The folder itself may be a link (to a shared disk, say): that is the user's choice.
    func testTheFolderItselfMayBeALink() throws {
        let real = dir.file("nas/Podcasts")
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir.file("Podcasts"), withDestinationPath: real)
        let linked = try DownloadFolder(path: dir.file("Podcasts"))
        XCTAssertEqual(linked.realPath, real)
        XCTAssertEqual(try linked.relativePath(of: dir.file("Podcasts/Show/a.mp3")), "Show/a.mp3")
        XCTAssertEqual(try linked.relativePath(of: real + "/Show/a.mp3"), "Show/a.mp3", "named either way")
        let file = try XCTUnwrap(linked.claim("Show/a.mp3"))
        file.close()
        XCTAssertTrue(FileManager.default.fileExists(atPath: real + "/Show/a.mp3.part"))
        XCTAssertThrowsError(try linked.relativePath(of: dir.file("elsewhere/a.mp3"))) {
            XCTAssertEqual($0 as? DownloadError, .outsideDownloadFolder(path: self.dir.file("elsewhere/a.mp3")))
        }
    }

    func testLinksWherePodqExpectsItsOwnFilesAreRefusedByName() throws {
        let outside = dir.file("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: outside + "/victim", contents: Data("keep".utf8))
        let root = dir.file("downloads")
        try FileManager.default.createSymbolicLink(atPath: root + "/a.mp3.part", withDestinationPath: outside + "/victim")
        try FileManager.default.createSymbolicLink(atPath: root + "/b.mp3.part", withDestinationPath: outside + "/new")
        try FileManager.default.createSymbolicLink(atPath: root + "/Show", withDestinationPath: outside)

        refused({ try self.folder.claim("a.mp3") }, naming: root + "/a.mp3.part")
        refused({ try self.folder.claim("b.mp3") }, naming: root + "/b.mp3.part")
        refused({ try self.folder.claim("Show/One.mp3") }, naming: root + "/Show")
        refused({ try self.folder.removeFile("Show/victim", recorded: nil) }, naming: root + "/Show")
        XCTAssertNil(folder.identity(of: "Show/victim"), "nothing is reached through a link")
        XCTAssertEqual(try String(contentsOfFile: outside + "/victim", encoding: .utf8), "keep")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside), ["victim"])
    }

    func testAFileWhereAFolderGoesAndAHardLinkedPartialAreRefused() throws {
        let root = dir.file("downloads")
        _ = FileManager.default.createFile(atPath: root + "/Show", contents: Data())
        XCTAssertThrowsError(try folder.claim("Show/One.mp3")) {
            XCTAssertEqual($0 as? DownloadError, .notPodqs(path: root + "/Show", reason: "it is a file, not a folder"))
        }
        _ = FileManager.default.createFile(atPath: dir.file("elsewhere"), contents: Data("other".utf8))
        XCTAssertEqual(link(dir.file("elsewhere"), root + "/h.mp3.part"), 0)
        XCTAssertThrowsError(try folder.claim("h.mp3")) {
            guard case .notPodqs(_, let reason) = $0 as? DownloadError else { return XCTFail("\($0)") }
            XCTAssertTrue(reason.contains("hard links"), reason)
        }
        XCTAssertEqual(mkfifo(root + "/f.mp3.part", 0o644), 0)
        XCTAssertThrowsError(try folder.claim("f.mp3"), "a FIFO is not a file to write into")
    }

    func testAClaimExcludesEveryOtherUntilItIsReleased() throws {
        let first = try XCTUnwrap(folder.claim("ep.mp3"))
        XCTAssertNil(try folder.claim("ep.mp3"), "held: another claim (another process) gets nothing")
        XCTAssertFalse(folder.removePartial("ep.mp3"), "nor can it delete the file")
        first.close()
        let again = try XCTUnwrap(folder.claim("ep.mp3"), "released: it can be claimed again")
        again.close()
        XCTAssertNil(try folder.claim("ep.mp3", exclusive: true), "exclusive: only a new file will do")
        XCTAssertTrue(folder.removePartial("ep.mp3"))
        XCTAssertEqual(dir.contents, ["downloads"])
    }

    func testACommitTakesTheFirstFreeNameAndRecordsTheFileFirst() async throws {
        let root = dir.file("downloads")
        _ = FileManager.default.createFile(atPath: root + "/ep.mp3", contents: Data("theirs".utf8))
        let file = try XCTUnwrap(folder.claim("ep.mp3"))
        Data([1, 2, 3]).withUnsafeBytes { bytes in
            let stream = file.makeOutputStream()
            stream.open()
            XCTAssertEqual(stream.write(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), maxLength: 3), 3)
        }
        let recorded = Recorder<String>()
        let committed = try await file.commit(length: 3, names: FileNamer.numberedNames("ep.mp3")) { identity, path in
            recorded.append("\((path as NSString).lastPathComponent) \(identity.size)")
        }
        XCTAssertEqual(committed.path, root + "/ep (2).mp3")
        XCTAssertEqual(recorded.values, ["ep (2).mp3 3"], "recorded before the rename, and only for a free name")
        XCTAssertEqual(folder.identity(of: "ep (2).mp3"), committed.identity)
        XCTAssertEqual(FileManager.default.contents(atPath: root + "/ep.mp3"), Data("theirs".utf8))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root).sorted(), ["ep (2).mp3", "ep.mp3"])
    }

    func testACommitChecksTheFilesOwnSize() async throws {
        let file = try XCTUnwrap(folder.claim("ep.mp3"))
        _ = Data([1, 2, 3]).withUnsafeBytes { bytes in
            let stream = file.makeOutputStream()
            stream.open()
            return stream.write(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), maxLength: 3)
        }
        do {
            _ = try await file.commit(length: 5, names: ["ep.mp3"]) { _, _ in }
            XCTFail("a file that does not hold what was written is not committed")
        } catch {
            guard case .partialChanged = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try file.size(), 0, "emptied: nothing of it is resumed")
        XCTAssertNil(folder.identity(of: "ep.mp3"))
        file.close()
    }
}
