import Foundation
import PodqBase
import PodqServer
import XCTest

final class LexicalPathTests: XCTestCase {
    /// The file system's meaning of a path (what the kernel resolves when no component is a link):
    /// empty and `.` components are nothing, `..` leaves the folder before it, and stays at the root.
    private func kernelMeaning(_ path: String, cwd: String) -> String {
        var stack: [Substring] = []
        for part in ((path.hasPrefix("/") ? "" : cwd + "/") + path).split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." { _ = stack.popLast() } else { stack.append(part) }
        }
        return "/" + stack.joined(separator: "/")
    }

    /// For generated paths of every shape (absolute and relative, `.` and `..` anywhere and above the
    /// root, repeated and trailing slashes, spaces and non-ASCII names): the file system's meaning, and
    /// the same answer as Foundation's `URL(fileURLWithPath:).standardizedFileURL.path`, which it
    /// replaced on the download folder's paths, wherever Foundation has it right. Foundation does not
    /// where an empty component meets `..`: it reads `a//..` as `a` (URL rules), the kernel as `.`.
    func testAgreesWithTheFileSystemAndWithFoundationOnGeneratedPaths() {
        let parts = ["a", "b", ".", "..", "", "x y", "é", ".hidden", "...", "c.mp3", "..a"]
        var random = SeededGenerator(seed: 45)
        let cwd = FileManager.default.currentDirectoryPath
        var compared = 0
        for _ in 0..<2_000 {
            let count = Int.random(in: 1...7, using: &random)
            var path = (0..<count).map { _ in parts.randomElement(using: &random)! }.joined(separator: "/")
            if Bool.random(using: &random) { path = "/" + path }
            guard !path.isEmpty else { continue }
            XCTAssertEqual(LexicalPath.standardized(path), kernelMeaning(path, cwd: cwd), path)
            if !path.contains("//") {
                XCTAssertEqual(LexicalPath.standardized(path), URL(fileURLWithPath: path).standardizedFileURL.path, path)
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 400)
    }

    /// Where Foundation and the kernel disagree, the kernel's meaning: `/d/a//../../x` is `/x`, outside
    /// a folder `/d` (Foundation said `/d/x`).
    func testAnEmptyComponentBeforeDotDotIsNothing() {
        XCTAssertEqual(LexicalPath.standardized("/d/a//../../x"), "/x")
        XCTAssertEqual(LexicalPath.standardized("/d/b//.."), "/d")
    }

    func testTheCasesThatMatter() {
        XCTAssertEqual(LexicalPath.standardized("/d/podcasts/../../etc/passwd"), "/etc/passwd")
        XCTAssertEqual(LexicalPath.standardized("/d//show/./e.mp3"), "/d/show/e.mp3")
        XCTAssertEqual(LexicalPath.standardized("/d/show/"), "/d/show")
        XCTAssertEqual(LexicalPath.standardized("/"), "/")
        XCTAssertEqual(LexicalPath.standardized("/.."), "/")
        XCTAssertEqual(LexicalPath.standardized("e.mp3", currentDirectory: "/home/me"), "/home/me/e.mp3")
        XCTAssertEqual(LexicalPath.standardized("../e.mp3", currentDirectory: "/home/me"), "/home/e.mp3")
    }

    /// The NSString path methods podq used give the same answers as their replacements, on generated
    /// paths of every shape (leading, repeated and trailing slashes, dots, extensions, spaces, é).
    /// corelibs traps on non-ASCII paths with repeated slashes and on one character before trailing
    /// slashes (docs/DECISIONS.md), so NSString is asked the path with é written e, and podq's answer
    /// for the é path, written the same way, must be its answer.
    func testPathPartsAgreeWithNSString() {
        let parts = ["a", "b.mp3", ".", "..", "", "x y.tar.gz", "é", ".hidden", "c.", "...", "d.M4A", "ép.é"]
        var random = SeededGenerator(seed: 460)
        func ascii(_ text: String) -> String { text.replacingOccurrences(of: "é", with: "e") }
        for _ in 0..<3_000 {
            var path = (0..<Int.random(in: 1...5, using: &random)).map { _ in parts.randomElement(using: &random)! }.joined(separator: "/")
            if Bool.random(using: &random) { path = "/" + path }
            let name = parts.randomElement(using: &random)!
            let ns = ascii(path) as NSString
            XCTAssertEqual(ascii(LexicalPath.join(path, name)), ns.appendingPathComponent(ascii(name)), "\(path) + \(name)")
            XCTAssertEqual(ascii(LexicalPath.pathExtension(of: path)), ns.pathExtension, path)
            var bare = Substring(path)
            while bare.hasSuffix("/") { bare = bare.dropLast() }
            guard bare.count > 1 else { continue }
            XCTAssertEqual(ascii(LexicalPath.parent(of: path)), ns.deletingLastPathComponent, path)
            XCTAssertEqual(ascii(LexicalPath.lastComponent(of: path)), ns.lastPathComponent, path)
            XCTAssertEqual(ascii(LexicalPath.deletingExtension(of: path)), ns.deletingPathExtension, path)
        }
    }

    /// Where NSString cannot be asked (it traps on one character), the answers it gives one longer.
    func testTheParentOfOneCharacterIsNothingOrTheRoot() {
        XCTAssertEqual(LexicalPath.parent(of: "2"), "")
        XCTAssertEqual(LexicalPath.parent(of: "é"), "")
        XCTAssertEqual(LexicalPath.parent(of: "/"), "/")
        XCTAssertEqual(LexicalPath.parent(of: "/2"), "/")
        XCTAssertEqual(LexicalPath.lastComponent(of: "2"), "2")
        XCTAssertEqual(LexicalPath.parent(of: "a/"), "")
        XCTAssertEqual(LexicalPath.parent(of: "é//x"), "é")
        XCTAssertEqual(LexicalPath.parent(of: "/é//x/"), "/é")
    }

    /// `~` is `$HOME`, as a shell reads it (corelibs' NSString read the account's passwd entry and
    /// ignored `$HOME`); `~user` is that user's home, as NSString has it.
    func testTildeExpandsAsAShellDoes() throws {
        let home = try XCTUnwrap(ProcessInfo.processInfo.environment["HOME"])
        let passwd = ("~" as NSString).expandingTildeInPath
        for path in ["~", "~/", "~/x", "~/x/y/", "~root", "~root/a", "x~", "/~", "~nosuchuser-podq/a"] {
            let expected = (path as NSString).expandingTildeInPath
            let shell = path == "~" || path.hasPrefix("~/") ? home + String(expected.dropFirst(passwd.count)) : expected
            XCTAssertEqual(LexicalPath.expandingTilde(path), shell, path)
        }
    }
}
