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
