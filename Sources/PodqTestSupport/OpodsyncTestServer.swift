import Foundation

/// opodsync (kd2org/opodsync, PHP and SQLite, AGPL-3.0, unmodified, in `../shared/opodsync`): a real
/// third-party sync server that speaks the gpodder.net API v2 **and** Nextcloud's GPodder Sync API on
/// one store, started by `../shared/opodsync-start.sh PORT DATADIR` on 127.0.0.1 with its state in
/// `folder`. Needs Debian's php-cli and php-sqlite3 (`make test` says so; `.ci/run` installs them).
///
/// The script is found at `PODQ_OPODSYNC_START`, else `../shared/opodsync-start.sh` beside the clone.
/// Not found, or PHP missing, the test fails with what to do: it is never skipped.
public final class OpodsyncTestServer: Sendable {
    public let url: URL
    public let user: String
    private let process: ChildProcess

    private init(url: URL, user: String, process: ChildProcess) {
        self.url = url
        self.user = user
        self.process = process
    }

    public struct NotInstalled: Error, CustomStringConvertible {
        public let description: String
    }

    /// Where the start script is.
    public static var script: String {
        if let given = ProcessInfo.processInfo.environment["PODQ_OPODSYNC_START"], !given.isEmpty { return given }
        // Sources/PodqTestSupport/<this file> → the clone → its folder's `shared`.
        let clone = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return clone.deletingLastPathComponent().appendingPathComponent("shared/opodsync-start.sh").path
    }

    /// Starts opodsync with one user, `user` / `password` (at least 8 characters).
    public static func start(in folder: String, user: String, password: String) async throws -> OpodsyncTestServer {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        guard FileManager.default.fileExists(atPath: script) else {
            throw NotInstalled(description: "opodsync's start script is not at \(script): set PODQ_OPODSYNC_START to ../shared/opodsync-start.sh")
        }
        let port = Self.freePort()
        let process = try ChildProcess(
            executable: "/bin/bash", arguments: [script, "\(port)", folder + "/data"],
            environment: ["SYNC_USER": user, "SYNC_PASS": password], directory: folder)
        // The script says "opodsync ready", or why not ("php missing", "could not create the user").
        _ = await waitUntil(timeout: 30, every: 50) {
            let said = process.standardError
            return said.contains("opodsync ready") || said.contains("missing") || said.contains("could not")
        }
        guard process.standardError.contains("opodsync ready") else {
            process.send(SIGKILL)
            throw NotInstalled(
                description: "opodsync did not start (\(process.standardError.suffix(600))); it needs php-cli and php-sqlite3: "
                    + "sudo apt-get install php-cli php-sqlite3")
        }
        return OpodsyncTestServer(url: URL(string: "http://127.0.0.1:\(port)")!, user: user, process: process)
    }

    /// Stops the server (the script stops PHP's).
    public func stop() {
        process.send(SIGTERM)
        if process.wait(timeout: 10).code == nil { process.send(SIGKILL) }
    }

    /// A loopback port no one listens on now: one the kernel picked for a socket, closed again.
    static func freePort() -> Int { RefusedPort().port }
}
