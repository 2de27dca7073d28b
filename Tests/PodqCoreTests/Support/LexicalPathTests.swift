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
}
