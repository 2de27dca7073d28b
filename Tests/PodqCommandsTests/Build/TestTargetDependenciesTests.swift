import Foundation
import PodqTestSupport
import XCTest

/// Each test target lists every podq module its files import. A module reached only through another
/// target (PodqTestSupport, say) was not rebuilt when its API or a type's layout changed: the tests then
/// ran stale objects (a crash, a link error, a wrong read). Package.swift says so beside the targets.
final class TestTargetDependenciesTests: XCTestCase {
    /// The test targets of Package.swift, each with the targets it names as dependencies.
    static func testTargets(in manifest: String) -> [String: Set<String>] {
        var targets: [String: Set<String>] = [:]
        var rest = Substring(manifest)
        while let start = rest.range(of: ".testTarget(") {
            rest = rest[start.upperBound...]
            let block = rest.range(of: ".testTarget(").map { rest[..<$0.lowerBound] } ?? rest
            guard let name = Self.quoted(after: "name:", in: block).first,
                let list = block.range(of: "dependencies:").map({ block[$0.upperBound...] }),
                let close = list.firstIndex(of: "]")
            else { continue }
            let dependencies = list[..<close].split(separator: ",").compactMap { item -> String? in
                let text = item.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "[")))
                guard text.hasPrefix("\""), text.dropFirst().contains("\"") else { return nil }
                return String(text.dropFirst().prefix { $0 != "\"" })
            }
            targets[name] = Set(dependencies)
        }
        return targets
    }

    private static func quoted(after label: String, in text: Substring) -> [String] {
        guard let at = text.range(of: label) else { return [] }
        let after = text[at.upperBound...].drop { $0 == " " }
        guard after.first == "\"" else { return [] }
        return [String(after.dropFirst().prefix { $0 != "\"" })]
    }

    /// The podq modules (`Podq…`, `C…` targets of Sources/) a test target's files import.
    static func importedModules(in folder: URL, known: Set<String>) throws -> [String: String] {
        var found: [String: String] = [:]
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where file.pathExtension == "swift" {
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let index = words.firstIndex(of: "import"), index + 1 < words.count else { continue }
                guard words[..<index].allSatisfy({ $0.hasPrefix("@") }) else { continue }
                let module = String(words[index + 1])
                if known.contains(module) { found[module] = file.lastPathComponent }
            }
        }
        return found
    }

    func testEveryTestTargetListsThePodqModulesItImports() throws {
        let manifest = try String(contentsOf: Repository.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let targets = Self.testTargets(in: manifest)
        XCTAssertGreaterThanOrEqual(targets.count, 8, "the test targets were not found in Package.swift")
        let sources = try FileManager.default.contentsOfDirectory(atPath: Repository.root.appendingPathComponent("Sources").path)
        let modules = Set(sources.filter { $0 != "podq" && $0 != "podq-bench" })
        XCTAssertTrue(modules.contains("PodqCore"), "\(modules)")
        for (target, dependencies) in targets {
            let imported = try Self.importedModules(in: Repository.root.appendingPathComponent("Tests/\(target)"), known: modules)
            XCTAssertFalse(imported.isEmpty, "\(target): no import of a podq module found")
            for (module, file) in imported.sorted(by: { $0.key < $1.key }) where !dependencies.contains(module) {
                XCTFail("\(target) imports \(module) (\(file)) but does not list it in Package.swift's dependencies")
            }
        }
    }

    /// The reader finds the names of a target written on one line and over several, and no product.
    func testTheManifestReaderFindsEachTargetsDependencies() {
        let manifest = """
            .testTarget(name: "ATests", dependencies: ["PodqA", "PodqB"], swiftSettings: strict),
            .testTarget(
                name: "BTests",
                dependencies: [
                    "PodqA",
                    .product(name: "Logging", package: "swift-log"),
                ],
                exclude: ["Fixtures"]),
            """
        XCTAssertEqual(Self.testTargets(in: manifest), ["ATests": ["PodqA", "PodqB"], "BTests": ["PodqA"]])
    }
}
