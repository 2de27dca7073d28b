import Foundation
import PodqSQLite
import PodqTestAssertions
import PodqTestSupport
import XCTest

/// A signal before a command's store is open, or while it waits for another program's lock: every
/// command ends with 130 (COMMANDS.md's one table), not 143, and a wait is said from the command's
/// start, `podq download`'s included (issue 43, point 5).
final class SignalWhileLockedTests: CLITestCase {
    /// A feed of one episode, subscribed.
    private func subscribe() async throws {
        server.serve(Array("ID3 an episode".utf8), as: "one.mp3", type: "audio/mpeg")
        let item =
            "<item><title>One</title><guid>one</guid><pubDate>1 Nov 2026 10:00:00 GMT</pubDate>"
            + "<enclosure url=\"\(server.url("/static/one.mp3").absoluteString)\" type=\"audio/mpeg\" length=\"14\"/></item>"
        server.serve(Array("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Held</title>\(item)</channel></rss>".utf8), as: "held.xml")
        let (exit, out, err) = try await cli.run(["add", server.url("/static/held.xml").absoluteString])
        XCTAssertEqual(exit.code, 0, out + err)
    }

    /// A download queued (not of the feed), so that `podq download` has a row to write and waits for the
    /// lock: with nothing to do it ends without writing, lock or not.
    private func queueOne() async throws {
        server.serve(Array("ID3 another".utf8), as: "two.mp3", type: "audio/mpeg")
        let (exit, out, err) = try await cli.run(["queue", "add", server.url("/static/two.mp3").absoluteString])
        XCTAssertEqual(exit.code, 0, out + err)
    }

    /// Another program's write lock on the database, as sqlite3's `BEGIN IMMEDIATE` holds it.
    private func holdTheLock() async throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let other = try DatabaseQueue(path: dir.file("home/queue.sqlite"), configuration: configuration)
        try await other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        return other
    }

    func testEveryCommandWaitingForTheLockSaysSoAndEndsWith130OnSIGTERM() async throws {
        try await subscribe()
        try await queueOne()
        let other = try await holdTheLock()
        let commands: [(args: [String], signal: Int32)] = [
            (["mark-played", "e1"], SIGTERM), (["refresh"], SIGTERM), (["download"], SIGTERM), (["queue", "add", "--latest", "1", "Held"], SIGINT),
        ]
        for (args, sig) in commands {
            let child = try cli.start(args)
            let said = await waitUntil(timeout: 15, every: 50) {
                (child.standardOutput + child.standardError).contains("waiting: another program holds the queue database's lock")
            }
            XCTAssertTrue(said, "\(args): the wait is said from the start: " + child.standardOutput + child.standardError)
            child.send(sig)
            let exit = await child.finish(timeout: 10)
            XCTAssertEqual(exit.code, 130, "\(args): " + child.standardOutput + child.standardError)
            XCTAssertFalse(
                (child.standardOutput + child.standardError).contains("more than 10 minutes"), "\(args): a stop after seconds says no 10 minutes")
        }
        try await other.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
        // Nothing was lost: the next commands run as if nothing happened.
        let (exit, out, err) = try await cli.run(["mark-played", "e1"])
        XCTAssertEqual(exit.code, 0, out + err)
    }

    /// Reading needs no lock: opening a home writes nothing, so a listing answers while another program
    /// holds the write lock, without a wait to say.
    func testReadingCommandsAnswerWhileTheLockIsHeld() async throws {
        try await subscribe()
        try await queueOne()
        let other = try await holdTheLock()
        for args in [["episodes"], ["queue"], ["feeds"]] {
            let (exit, out, err) = try await cli.run(args)
            XCTAssertEqual(exit.code, 0, "\(args): " + out + err)
            XCTAssertFalse((out + err).contains("waiting"), "\(args): " + out + err)
        }
        let listed = try await cli.run(["episodes"]).1
        XCTAssertTrue(listed.contains("One"), listed)
        try await other.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
    }

    /// `podq download --json` says the wait as a JSON object, as every line it writes.
    func testDownloadJSONSaysTheWaitAsAnObject() async throws {
        try await subscribe()
        try await queueOne()
        let other = try await holdTheLock()
        let child = try cli.start(["download", "--json"])
        await expect(timeout: 15, every: 50) { child.standardOutput.contains("waiting: another program") }
        try await other.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
        let exit = await child.finish(timeout: 30)
        XCTAssertEqual(exit.code, 0, child.standardOutput + child.standardError)
        let lines = child.standardOutput.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.contains("waiting: another program") }, child.standardOutput)
        for line in lines {
            XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "one JSON object a line: \(line)")
        }
    }
}
