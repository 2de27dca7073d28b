import PodqCore
import PodqHTTP
import PodqTestAssertions
import PodqTestSupport
import XCTest

/// An idle runner does not read the queue again until something changed (this process's write or
/// another process's), and then it does at once.
final class QueueRunnerIdleTests: XCTestCase {
    func testAnIdleQueueIsNotReadAgainUntilSomethingChanges() async throws {
        let server = try await TestServer.start()
        let dir = TemporaryDirectory()
        let transport = AsyncHTTPTransport()
        defer { dir.remove() }
        let store = try QueueStore(path: dir.file("q.sqlite"))
        let paused = try await store.queue.add(
            url: server.dataURL(size: 1000, seed: 1, name: "a.bin").absoluteString, title: "a", destination: dir.file("a.bin"))
        try await store.queue.update(id: paused.id) { $0.state = .paused }
        let syncs = Recorder<Int>()
        let runner = QueueRunner(
            store: store, settings: Settings(), transport: transport,
            observers: .init(onSync: { syncs.append($0.count) }))
        let running = Task { try await runner.run(untilStopped: true) }
        await expect(timeout: 20) { runner.status.plans >= 4 }  // the first look, then three ticks
        XCTAssertEqual(syncs.values, [1], "read once, then not again while nothing changed")

        // Another process adds a download: the next tick reads the queue and starts it.
        let other = try QueueStore(path: dir.file("q.sqlite"))
        let late = try await other.queue.add(url: server.dataURL(size: 1000, seed: 2, name: "b.bin").absoluteString, title: "b", destination: dir.file("b.bin"))
        let done = try await waitUntil(timeout: 5, every: 50) { try store.queue.download(id: late.id)?.state == .completed }
        XCTAssertTrue(done, "another process's row was seen and downloaded")
        XCTAssertEqual(syncs.values.first, 1)
        XCTAssertEqual(syncs.values.last, 2)
        await runner.stop()
        _ = try await running.value
        await transport.shutdown()
        await server.stop()
    }

    func testTheChangeStampMovesWithEveryWriteFromAnyConnection() async throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = try QueueStore(path: dir.file("q.sqlite"))
        let first = try await store.changeStamp()
        let again = try await store.changeStamp()
        XCTAssertEqual(again, first, "a read changes nothing")
        _ = try await store.queue.downloads()
        let afterRead = try await store.changeStamp()
        XCTAssertEqual(afterRead, first)
        let row = try await store.queue.add(url: "http://127.0.0.1:9/a", title: "a", destination: dir.file("a"))
        let afterOwn = try await store.changeStamp()
        XCTAssertNotEqual(afterOwn, first, "this store's write")
        let other = try QueueStore(path: dir.file("q.sqlite"))
        try await other.queue.update(id: row.id) { $0.title = "b" }
        let afterOther = try await store.changeStamp()
        XCTAssertNotEqual(afterOther, afterOwn, "another connection's write")
    }
}
