import Foundation
import PodqTestSupport
import XCTest

/// The fixture of the CLI tests: the in-process server, a temporary folder, and the real binary run
/// with a home of its own in it.
class CLITestCase: XCTestCase {
    var server: TestServer!
    var dir: TemporaryDirectory!
    var cli: PodqInvocation!

    override func setUp() async throws {
        server = try await TestServer.start()
        dir = TemporaryDirectory("podq-cli")
        cli = PodqInvocation(home: dir.file("home"), directory: dir.path)
    }

    override func tearDown() async throws {
        await server.stop()
        dir.remove()
    }
}

extension CLITestCase {
    /// What one run of podq printed, with the run's variable parts in words: the server's address as
    /// `<server>/`, the test's folder as `<dir>`, a refresh time as `<time>`.
    struct Printed: Equatable, CustomStringConvertible {
        var code: Int32?
        var out: String
        var err: String
        var description: String { "exit \(code.map(String.init) ?? "?")\n--- out\n\(out)--- err\n\(err)" }
    }

    /// Runs podq with `args` and returns what it printed (``Printed``).
    func printed(_ args: [String]) async throws -> Printed {
        let (exit, out, err) = try await cli.run(args)
        func plain(_ text: String) -> String {
            var text = text.replacingOccurrences(of: server.url("/").absoluteString, with: "<server>/")
            text = text.replacingOccurrences(of: dir.path, with: "<dir>")
            return text.replacingOccurrences(of: #""lastRefresh":\d+"#, with: #""lastRefresh":<time>"#, options: .regularExpression)
        }
        return Printed(code: exit.code, out: plain(out), err: plain(err))
    }

    /// The whole of what podq printed for `args`, compared at once: its output, its errors and its exit
    /// code (the one whole-output assertion; a failure shows all three).
    func assertPrints(
        _ args: [String], out: String, err: String = "", code: Int32 = 0, file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        let got = try await printed(args)
        XCTAssertEqual(got, Printed(code: code, out: out, err: err), "podq \(args.joined(separator: " "))", file: file, line: line)
    }

    /// `secret` (a password) is in none of `printed` (what podq wrote) and no byte of any file of the home
    /// (database, config, log): no credential is ever printed or stored by podq.
    func assertNothingHolds(_ secret: String, printed: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        for text in printed { XCTAssertFalse(text.contains(secret), "printed: \(text)", file: file, line: line) }
        let home = dir.file("home")
        for name in try FileManager.default.subpathsOfDirectory(atPath: home) {
            guard let data = FileManager.default.contents(atPath: home + "/" + name) else { continue }
            XCTAssertNil(data.range(of: Data(secret.utf8)), "\(name) holds the password", file: file, line: line)
        }
    }
}

/// The repository's folder, wherever a test file sits under Tests/.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath.components(separatedBy: "/Tests/")[0])
}
