import Foundation
import PodqTestSupport
import XCTest

/// The binary holds no ICU: every target that goes into `podq` imports FoundationEssentials, never the
/// rest of Foundation (FoundationInternationalization brings ICU's 34 MB; docs/DECISIONS.md,
/// "FoundationEssentials only"). The compiler then refuses any call that would pull it back in. The
/// release check is `podq-bench size` and the package check's size limit.
final class FoundationEssentialsOnlyTests: XCTestCase {
    /// The folders of the targets `podq` links (Package.swift: podq → PodqCommands and what it needs).
    static let productFolders = [
        "Sources/PodqBase", "Sources/PodqSQLite", "Sources/PodqHTTP", "Sources/PodqCore", "Sources/PodqUI", "Sources/PodqTerminal",
        "Sources/PodqServer", "Sources/PodqSession", "Sources/PodqCommands", "Sources/podq", "Resources",
    ]

    func testNoTargetOfTheBinaryImportsFoundation() throws {
        let banned = try NSRegularExpression(
            pattern:
                #"^\s*(@[A-Za-z_]+(\([^)]*\))?\s+)*((public|package|internal)\s+)?import\s+(class\s+|struct\s+|enum\s+|func\s+)?(Foundation|FoundationInternationalization|FoundationNetworking|FoundationXML|CoreFoundation)(\.|\s|$)"#,
            options: [.anchorsMatchLines])
        var checked = 0
        for folder in Self.productFolders {
            let root = Repository.root.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            for file in files where file.pathExtension == "swift" {
                let code = try String(contentsOf: file, encoding: .utf8)
                checked += 1
                for match in banned.matches(in: code, range: NSRange(code.startIndex..., in: code)) {
                    let line = Range(match.range, in: code).map { String(code[$0]) } ?? ""
                    XCTFail(
                        "\(folder)/\(file.lastPathComponent) imports more than FoundationEssentials: \(line.trimmingCharacters(in: .whitespacesAndNewlines))")
                }
            }
        }
        XCTAssertGreaterThan(checked, 200, "the targets' files were not found under \(Repository.root.path)")
    }

    /// The pattern finds each way of writing the import that would bring ICU back.
    func testThePatternFindsEveryFormOfTheImport() throws {
        let banned = try NSRegularExpression(
            pattern:
                #"^\s*(@[A-Za-z_]+(\([^)]*\))?\s+)*((public|package|internal)\s+)?import\s+(class\s+|struct\s+|enum\s+|func\s+)?(Foundation|FoundationInternationalization|FoundationNetworking|FoundationXML|CoreFoundation)(\.|\s|$)"#,
            options: [.anchorsMatchLines])
        func found(_ text: String) -> Bool { banned.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil }
        for text in [
            "import Foundation", "@preconcurrency import Foundation", "public import Foundation", "@_exported import Foundation",
            "import struct Foundation.Date", "  import FoundationInternationalization", "import FoundationNetworking\n",
        ] {
            XCTAssertTrue(found(text), text)
        }
        for text in ["import FoundationEssentials", "// import Foundation is gone", "import PodqFoundationX"] {
            XCTAssertFalse(found(text), text)
        }
    }
}
