import Foundation
import PodqCore
import XCTest

@testable import PodqCommands

/// Docs that cannot drift (issue 31, point 5): what the code has a table of, the docs' tables are
/// checked against, and every type the living docs name must exist. (docs/DECISIONS.md,
/// PERFORMANCE.md and CHANGELOG.md are history: they keep the names things had.)
final class DocsTests: XCTestCase {
    private static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func read(_ path: String) throws -> String {
        try String(contentsOf: Self.repo.appendingPathComponent(path), encoding: .utf8)
    }

    /// The first column of a markdown table's rows, without the backticks: `| \`key\` | … |`.
    private func firstColumn(_ text: String, after heading: String) -> [String] {
        guard let start = text.range(of: heading) else { return [] }
        var names: [String] = []
        var inTable = false
        for line in text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("|") {
                inTable = true
                let cell = line.dropFirst().split(separator: "|").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
                if cell.hasPrefix("`") && cell.hasSuffix("`") { names.append(String(cell.dropFirst().dropLast())) }
            } else if inTable {
                break
            }
        }
        return names
    }

    func testTheConfigKeysTableIsTheCodesKeys() throws {
        let documented = firstColumn(try read("docs/CONFIG.md"), after: "| key | default | meaning |")
        XCTAssertEqual(Set(documented), Set(Settings.keys.map(\.key)), "docs/CONFIG.md's table against Settings.keys")
        XCTAssertEqual(documented.count, Set(documented).count, "a key documented twice")
    }

    func testEveryTUIActionIsNamedInTheConfigDocs() throws {
        let config = try read("docs/CONFIG.md")
        for action in KeyBindings.Action.allCases {
            XCTAssertTrue(config.contains(action.rawValue), "key-\(action.rawValue) is not in docs/CONFIG.md")
        }
    }

    func testTheExitCodeTableIsTheCodesTable() throws {
        let documented = firstColumn(try read("docs/COMMANDS.md"), after: "| code | when |").compactMap { Int32($0) }
        XCTAssertEqual(documented, ExitCodes.all, "docs/COMMANDS.md's exit codes")
        for code in ExitCodes.all {
            XCTAssertTrue(ExitCodes.summary.contains(" \(code) "), "podq --help's summary leaves out \(code)")
        }
    }

    /// Every type, target or test a living doc names in backticks (`QueueSession`, `EpisodeLibrary.Builder`)
    /// is in the sources or the tests: a rename or a removal that leaves a doc behind fails here.
    func testEveryNameTheLivingDocsGiveExists() throws {
        var corpus = ""
        for folder in ["Sources", "Tests"] {
            let root = Self.repo.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            for file in files where ["swift", "c", "h"].contains(file.pathExtension) {
                // Its folders (targets: `PodqUITests`) and its name (`ProxyForwarding.swift`) count too.
                corpus += file.deletingPathExtension().pathComponents.joined(separator: "\n") + "\n"
                corpus += (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            }
        }
        let words = Set(corpus.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init))
        let living = [
            "README.md", "docs/ARCHITECTURE.md", "docs/FILES.md", "docs/FEEDS.md", "docs/STORE.md", "docs/CONFIG.md",
            "docs/COMMANDS.md", "docs/TROUBLESHOOTING.md",
        ]
        let pattern = try NSRegularExpression(pattern: "`([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)(?:[.(][^`]*)?`")
        for doc in living {
            guard let text = try? read(doc) else { continue }
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                let name = String(text[range])
                XCTAssertTrue(words.contains(name), "\(doc) names `\(name)`, which is nowhere in Sources or Tests")
            }
        }
    }
}
