import PodqCore
import PodqTestSupport
import XCTest

final class FileNamerTests: XCTestCase {
    func testBareURLNameIsTheLastSegmentWithoutQuery() {
        XCTAssertEqual(FileNamer.name(forURL: URL(string: "https://cdn.example/a/b/Episode%2012.mp3?token=abc")!), "Episode 12.mp3")
        XCTAssertEqual(FileNamer.name(forURL: URL(string: "https://cdn.example/")!), "download")
        XCTAssertEqual(FileNamer.name(forURL: URL(string: "https://cdn.example/a/..%2F..%2Fetc%2Fpasswd")!), "passwd", "an encoded slash never reaches a name")
    }

    /// `auto` asks the folder's file system: this machine's temporary folder is not FAT, NTFS or SMB.
    func testTheRulesFollowTheFileSystem() {
        XCTAssertEqual(FileNamer.Rules.detect(for: NSTemporaryDirectory()), .posix)
        XCTAssertEqual(FileNamer.Rules.detect(for: NSTemporaryDirectory() + "/not/yet/made"), .posix, "the nearest existing folder is asked")
        var settings = Settings()
        settings.windowsSafeNames = true
        XCTAssertEqual(settings.nameRules(for: NSTemporaryDirectory()), .windows)
        settings.windowsSafeNames = false
        XCTAssertEqual(settings.nameRules(for: NSTemporaryDirectory()), .posix)
    }

    func testUnsafeCharactersAreReplaced() {
        XCTAssertEqual(FileNamer.safeName("a/b\\c<d>e:f\"g|h?i*j", rules: .windows), "a_b_c_d_e_f_g_h_i_j")
        // On Linux's file systems only `/` must go: "Talk: A Show?" keeps its colon and question mark.
        XCTAssertEqual(FileNamer.safeName("a/b\\c<d>e:f\"g|h?i*j"), "a_b\\c<d>e:f\"g|h?i*j")
        XCTAssertEqual(FileNamer.safeName("Talk: A Show?"), "Talk: A Show?")
        XCTAssertEqual(FileNamer.safeName("..hidden. "), "hidden")
        XCTAssertEqual(FileNamer.safeName("\u{1B}[2Jclear\u{0}"), "clear")
    }

    func testLongNamesAreCutOnACharacterBoundaryKeepingTheExtension() {
        let long = String(repeating: "ポ", count: 200) + ".mp3"
        let cut = FileNamer.safeName(long)
        XCTAssertLessThanOrEqual(cut.utf8.count + ".part".utf8.count + " (99)".utf8.count, 255)
        XCTAssertTrue(cut.hasSuffix("ポ.mp3"))
        XCTAssertEqual(String(decoding: Array(cut.utf8), as: UTF8.self), cut)
    }

    func testEveryNumberedNameFitsWithItsPartSuffix() {
        for base in [
            String(repeating: "é", count: 200) + ".mp3", String(repeating: "x", count: 300), FileNamer.safeName(String(repeating: "ポ", count: 120) + ".m4a"),
        ] {
            let name = FileNamer.safeName(base)
            for (n, numbered) in FileNamer.numberedNames("Show/" + name).enumerated() where [0, 1, 9, 99, 999, 9_999].contains(n) {
                let last = String(numbered.split(separator: "/").last!)
                XCTAssertLessThanOrEqual((last + ".part").utf8.count, 255, "name \(n + 1)")
                XCTAssertTrue(numbered.hasPrefix("Show/"))
                if n > 0 { XCTAssertTrue(last.contains(" (\(n + 1))"), last) }
                if base.hasSuffix(".mp3") { XCTAssertTrue(last.hasSuffix(".mp3"), last) }
                XCTAssertNotNil(String(validating: Array(last.utf8), as: UTF8.self), "cut on a character boundary")
            }
        }
    }

    func testCollisionsGetNumberedAndPartialsAreResumed() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        _ = FileManager.default.createFile(atPath: dir.file("ep.mp3"), contents: Data())
        let second = try FileNamer.uniquePath(in: dir.path, name: "ep.mp3")
        XCTAssertEqual((second as NSString).lastPathComponent, "ep (2).mp3")
        let third = try FileNamer.uniquePath(in: dir.path, name: "ep.mp3", reserved: [second])
        XCTAssertEqual((third as NSString).lastPathComponent, "ep (3).mp3")
        _ = FileManager.default.createFile(atPath: dir.file("half.mp3.part"), contents: Data([1]))
        XCTAssertEqual((try FileNamer.uniquePath(in: dir.path, name: "half.mp3") as NSString).lastPathComponent, "half.mp3")
    }

    func testPathsOutsideTheFolderAreRefused() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        for bad in ["../x", "/etc/passwd", "a/../../x", "."] {
            XCTAssertThrowsError(try FileNamer.contained(bad, in: dir.path), bad)
        }
        try FileManager.default.createSymbolicLink(atPath: dir.file("link"), withDestinationPath: "/tmp")
        XCTAssertThrowsError(try FileNamer.contained("link/x", in: dir.path))
        XCTAssertEqual(try FileNamer.contained("sub/x.mp3", in: dir.path).hasSuffix("/sub/x.mp3"), true)
    }

    /// One ``FileNamer/Containment`` for every candidate: a name taken many times over in a linked
    /// folder is refused at the first, and in a plain subfolder numbered on (the parent resolved once).
    func testEveryCandidateStaysContained() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try FileManager.default.createSymbolicLink(atPath: dir.file("link"), withDestinationPath: "/tmp")
        XCTAssertThrowsError(try FileNamer.uniquePath(in: dir.path, name: "link/ep.mp3"))
        try FileManager.default.createDirectory(atPath: dir.file("Show"), withIntermediateDirectories: true)
        var reserved: Set<String> = []
        for n in 1...60 {
            let path = try FileNamer.uniquePath(in: dir.path, name: "Show/ep.mp3", reserved: reserved)
            XCTAssertEqual((path as NSString).lastPathComponent, n == 1 ? "ep.mp3" : "ep (\(n)).mp3")
            XCTAssertTrue(path.contains("/Show/ep"), path)
            reserved.insert(path)
        }
    }
}
