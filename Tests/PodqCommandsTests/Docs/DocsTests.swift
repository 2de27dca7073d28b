import Foundation
import PodqBase
import PodqCore
import PodqUI
import XCTest

@testable import PodqCommands
@testable import PodqSession

/// Docs that cannot drift (issue 31, point 5): what the code has a table of, the docs' tables are
/// checked against, and every type the living docs name must exist. (docs/DECISIONS.md,
/// PERFORMANCE.md and CHANGELOG.md are history: they keep the names things had.)
final class DocsTests: XCTestCase {
    private static let repo = Repository.root

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

    /// Every generated section is what the code generates now: a config key, a key, an exit code or a
    /// limit changed without `make docs` fails here, naming the file.
    func testEveryGeneratedSectionIsCurrent() throws {
        let performance = try read("docs/PERFORMANCE.md")
        for file in GeneratedDocs.files {
            let text = try read(file)
            let fresh = try GeneratedDocs.render(text, file: file, performance: performance)
            if fresh != text {
                let line =
                    Array(zip(text.split(separator: "\n", omittingEmptySubsequences: false), fresh.split(separator: "\n", omittingEmptySubsequences: false)))
                    .firstIndex { $0 != $1 }.map { $0 + 1 } ?? 0
                XCTFail("\(file) is stale from line \(line): run make docs")
            }
        }
    }

    /// The check itself fails on a stale section, and on a document that lost its markers.
    func testAStaleOrMissingSectionIsFound() throws {
        let readme = try read("README.md")
        let changed = readme.replacingOccurrences(of: "| PgUp PgDn | a page up / down |", with: "| PgUp PgDn | a page |")
        XCTAssertNotEqual(changed, readme)
        let performance = try read("docs/PERFORMANCE.md")
        XCTAssertEqual(try GeneratedDocs.render(changed, file: "README.md", performance: performance), readme)
        XCTAssertThrowsError(try GeneratedDocs.render("# no markers\n", file: "docs/COMMANDS.md", performance: performance))
        // The "Why podq" table follows the bench's: a figure changed in PERFORMANCE.md makes README stale.
        let row = try XCTUnwrap(BenchSummary.table("### a.", in: performance)["podq"])
        let (wall, speed) = (try XCTUnwrap(row["wall s"]), try XCTUnwrap(row["mb/s"]))
        let faster = performance.replacingOccurrences(of: "| podq | \(wall) | \(speed) |", with: "| podq | \(wall) | 9999 |")
        XCTAssertNotEqual(faster, performance, "row a's podq line is found")
        XCTAssertTrue(try GeneratedDocs.render(readme, file: "README.md", performance: faster).contains("**9999**"))
    }

    /// The config reader knows every key the table documents, and no other.
    func testTheDocumentedKeysAreTheReadersKeys() throws {
        XCTAssertEqual(Settings.keys.count, Set(Settings.keys.map(\.name)).count, "a key documented twice")
        let path = NSTemporaryDirectory() + "podq-docs-config-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: path) }
        func isUnknown(_ line: String) throws -> Bool {
            try (line + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            do {
                _ = try ConfigFile(path: path).load()
            } catch {
                if case .unknownKey = error { return true }
            }
            return false
        }
        for key in Settings.keys {
            let name = key.name == "key-<action>" ? "key-cancel" : key.name
            XCTAssertFalse(try isUnknown("\(name) = x"), "\(name) is documented but the config reader does not know it")
        }
        XCTAssertTrue(try isUnknown("no-such-key = 1"))
    }

    /// Every remappable action is in the key table the overlay, the README and the man page show.
    func testEveryActionIsInTheKeyTable() {
        var shown = Set<KeyBindings.Action>()
        for row in KeyTable.rows {
            for case .actions(let actions) in row.keys { shown.formUnion(actions) }
        }
        XCTAssertEqual(shown, Set(KeyBindings.Action.allCases))
    }

    func testTheExitCodeSummaryNamesEveryCode() {
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
        // Every guide a message or a help text names is one every install ships (PodqDocs.guides, the
        // Makefile's GUIDES): none points to a developer's document a user does not have.
        let named = try NSRegularExpression(pattern: "\\b([A-Z]+)\\.md\\b")
        let makefile = try read("Makefile")
        for folder in ["Sources/PodqCore", "Sources/PodqUI", "Sources/PodqSession", "Sources/PodqCommands", "Sources/PodqTerminal"] {
            let root = Self.repo.appendingPathComponent(folder)
            for file in FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap({ $0 as? URL }) ?? []
            where file.pathExtension == "swift" && !file.path.contains("/Docs/") {
                let code = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").filter {
                    !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//")
                }
                .joined(separator: "\n")
                for match in named.matches(in: code, range: NSRange(code.startIndex..., in: code)) {
                    guard let range = Range(match.range, in: code) else { continue }
                    let guide = String(code[range])
                    XCTAssertTrue(
                        guide == "README.md" || PodqDocs.guides.contains(guide), "\(file.lastPathComponent) points users to \(guide), which no install ships")
                    XCTAssertTrue(guide == "README.md" || makefile.contains(guide), "the Makefile's GUIDES installs \(guide)")
                }
            }
        }
        let words = Set(corpus.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init))
        let living = [
            "README.md", "docs/ARCHITECTURE.md", "docs/FILES.md", "docs/FEEDS.md", "docs/STORE.md", "docs/CONFIG.md",
            "docs/COMMANDS.md", "docs/TROUBLESHOOTING.md", "docs/SYNC.md", "Sources/PodqCore/README.md", "Sources/PodqSession/README.md",
            "Sources/PodqCommands/README.md", "Tests/README.md",
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
