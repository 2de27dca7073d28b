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
