import PodqCore
import PodqSQLite
import PodqTestSupport
import XCTest

final class QueueStoreTests: XCTestCase {
    private var dir: TemporaryDirectory!
    override func setUp() { dir = TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    func testAddListUpdateRemoveAndReorder() throws {
        let store = try QueueStore(path: dir.file("q.sqlite"))
        let a = try store.queue.add(url: "http://h/a.mp3", title: "a", destination: "/d/a.mp3")
        let b = try store.queue.add(url: "http://h/b.mp3", title: "b", podcast: "Show", destination: "/d/b.mp3")
        XCTAssertEqual(try store.queue.downloads().map(\.title), ["a", "b"])
        try store.queue.moveToFront(id: b.id)
        XCTAssertEqual(try store.queue.downloads().map(\.title), ["b", "a"])
        let saved = try store.queue.update(id: a.id) {
            $0.state = .downloading
            $0.validators = ResourceValidators(strongETag: "\"x\"", lastModified: "d", totalLength: 10, finalURL: "http://h/final")
        }
        XCTAssertEqual(saved.validators?.strongETag, "\"x\"")
        XCTAssertEqual(try store.queue.download(id: a.id)?.state, .downloading)
        try store.queue.remove(id: a.id)
        XCTAssertEqual(try store.queue.downloads().map(\.title), ["b"])
        XCTAssertThrowsError(try store.queue.remove(id: 999)) { XCTAssertEqual($0 as? StoreError, .noSuchDownload(999)) }
        XCTAssertEqual(try store.queue.destinations(), ["/d/b.mp3"])
    }

    func testReopeningKeepsEverythingAndUsesWAL() throws {
        do {
            let store = try QueueStore(path: dir.file("q.sqlite"))
            try store.queue.add(url: "http://h/a", title: "a", destination: "/d/a")
        }
        let again = try QueueStore(path: dir.file("q.sqlite"))
        XCTAssertEqual(try again.queue.downloads().count, 1)
        let mode = try DatabaseQueue(path: dir.file("q.sqlite")).read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
        XCTAssertEqual(mode, "wal")
    }

    func testADamagedFileIsReportedAndLeftAlone() throws {
        let path = dir.file("q.sqlite")
        let junk = Data("this is not a database, but someone's notes".utf8)
        _ = FileManager.default.createFile(atPath: path, contents: junk)
        XCTAssertThrowsError(try QueueStore(path: path)) { error in
            guard case .corrupt(let p, _) = error as? StoreError else { return XCTFail("\(error)") }
            XCTAssertEqual(p, path)
            XCTAssertTrue(error.localizedDescription.contains("Move it aside"))
        }
        XCTAssertEqual(FileManager.default.contents(atPath: path), junk, "the file is not changed")
    }

    func testAForeignDatabaseIsRefusedAndLeftAlone() throws {
        let path = dir.file("q.sqlite")
        try DatabaseQueue(path: path).write { try $0.execute(sql: "CREATE TABLE notes(text); INSERT INTO notes VALUES ('mine')") }
        let before = FileManager.default.contents(atPath: path)
        XCTAssertThrowsError(try QueueStore(path: path)) { XCTAssertEqual($0 as? StoreError, .foreign(path: path)) }
        XCTAssertEqual(FileManager.default.contents(atPath: path), before)
    }

    func testAnUnwritableFolderSaysSo() {
        XCTAssertThrowsError(try QueueStore(path: "/proc/podq/q.sqlite")) {
            guard case .cannotOpen = $0 as? StoreError else { return XCTFail("\($0)") }
        }
    }

    func testReconcileMatchesTheDisk() throws {
        let store = try QueueStore(path: dir.file("q.sqlite"))
        let running = try store.queue.add(url: "http://h/1", title: "1", destination: dir.file("1.mp3"))
        let renamed = try store.queue.add(url: "http://h/2", title: "2", destination: dir.file("2.mp3"))
        let cancelled = try store.queue.add(url: "http://h/3", title: "3", destination: dir.file("3.mp3"))
        let done = try store.queue.add(url: "http://h/4", title: "4", destination: dir.file("4.mp3"))
        try store.queue.update(id: running.id) {
            $0.state = .downloading; $0.bytesReceived = 10
        }
        _ = FileManager.default.createFile(atPath: dir.file("1.mp3.part"), contents: Data(count: 1234))
        _ = FileManager.default.createFile(atPath: dir.file("2.mp3"), contents: Data(count: 50))
        // The runner recorded the file before renaming it, then died before saving the row.
        let identity = try XCTUnwrap(DownloadFolder(path: dir.path).identity(of: "2.mp3"))
        try store.queue.update(id: renamed.id) {
            $0.state = .downloading; $0.committedFile = (self.dir.file("2.mp3"), identity)
        }
        try store.queue.update(id: cancelled.id) { $0.state = .cancelled }
        _ = FileManager.default.createFile(atPath: dir.file("3.mp3.part"), contents: Data(count: 5))
        try store.queue.update(id: done.id) { $0.state = .completed }

        let report = try store.reconcile()
        XCTAssertEqual(report.requeued, [running.id])
        XCTAssertEqual(report.completed, [renamed.id])
        XCTAssertEqual(report.deletedPartials, [dir.file("3.mp3.part")])
        let rows = try store.queue.downloads()
        XCTAssertEqual(rows.map(\.state), [.queued, .completed, .cancelled, .completed])
        XCTAssertEqual(rows[0].bytesReceived, 1234, "bytes come from the partial file")
        XCTAssertEqual(rows[1].bytesReceived, 50)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("3.mp3.part")))
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("1.mp3.part")), "a partial to resume is kept")
    }
}

extension QueueStoreTests {
    func testReconcileFindsAFileRenamedWithAnExtensionFromTheContentType() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = try QueueStore(path: dir.file("q.sqlite"))
        let row = try store.queue.add(url: "http://h/download?id=3", title: "d", destination: dir.file("download"))
        _ = FileManager.default.createFile(atPath: dir.file("download.mp3"), contents: Data(count: 99))
        let identity = try XCTUnwrap(DownloadFolder(path: dir.path).identity(of: "download.mp3"))
        try store.queue.update(id: row.id) {
            $0.state = .downloading; $0.committedFile = (dir.file("download.mp3"), identity)
        }
        XCTAssertEqual(try store.reconcile().completed, [row.id])
        let saved = try XCTUnwrap(store.queue.download(id: row.id))
        XCTAssertEqual(saved.destination, dir.file("download.mp3"))
        XCTAssertEqual(saved.bytesReceived, 99)
    }

    /// A file podq did not commit is somebody else's: a file that appears at a queued destination,
    /// and a committed file replaced afterwards by another one, are not adopted.
    func testReconcileAdoptsNoFileItDidNotCommit() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = try QueueStore(path: dir.file("q.sqlite"))
        let appeared = try store.queue.add(url: "http://h/a.mp3", title: "a", destination: dir.file("a.mp3"))
        _ = FileManager.default.createFile(atPath: dir.file("a.mp3"), contents: Data(count: 10))
        let replaced = try store.queue.add(url: "http://h/b.mp3", title: "b", destination: dir.file("b.mp3"))
        _ = FileManager.default.createFile(atPath: dir.file("b.mp3"), contents: Data(count: 20))
        let identity = try XCTUnwrap(DownloadFolder(path: dir.path).identity(of: "b.mp3"))
        try store.queue.update(id: replaced.id) {
            $0.state = .downloading; $0.committedFile = (dir.file("b.mp3"), identity)
        }
        unlink(dir.file("b.mp3"))
        _ = FileManager.default.createFile(atPath: dir.file("b.mp3"), contents: Data(count: 20))

        let report = try store.reconcile()
        XCTAssertEqual(report.completed, [])
        XCTAssertEqual(report.requeued, [replaced.id])
        XCTAssertEqual(try store.queue.downloads().map(\.state), [.queued, .queued])
        XCTAssertNil(try store.queue.download(id: replaced.id)?.committedFile, "the stale record goes")
        XCTAssertEqual(try store.queue.download(id: appeared.id)?.bytesReceived, 0)
    }

    /// A state this podq does not know is an error that says so, not a silent "failed".
    func testAnUnknownStoredStateIsAnErrorThatSaysSo() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = try QueueStore(path: dir.file("q.sqlite"))
        let row = try store.queue.add(url: "http://h/a.mp3", title: "a", destination: dir.file("a.mp3"))
        try DatabaseQueue(path: dir.file("q.sqlite")).write { try $0.execute(sql: "UPDATE download SET state = 'frozen' WHERE id = ?", arguments: [row.id]) }
        XCTAssertThrowsError(try store.queue.downloads()) { error in
            XCTAssertEqual(error as? StoreError, .unknownState(id: row.id, value: "frozen"))
            XCTAssertTrue(error.localizedDescription.contains("'frozen'"), error.localizedDescription)
        }
    }
}

/// Changes through the state machine and moves, as `podq queue …` and the TUI make them.
final class QueueStoreChangeTests: XCTestCase {
    private var dir: TemporaryDirectory!
    override func setUp() { dir = TemporaryDirectory() }
    override func tearDown() { dir.remove() }

    func testApplyFollowsTheStateMachine() throws {
        let store = try QueueStore(path: dir.file("q.sqlite"))
        let id = try store.queue.add(url: "http://h/a.mp3", title: "a", destination: "/d/a.mp3").id
        try store.queue.update(id: id) {
            $0.state = .failed; $0.attempts = 5; $0.lastError = "503"; $0.retryAt = 99
        }
        let (before, after) = try store.queue.apply(.retry, to: id)
        XCTAssertEqual(before.state, .failed)
        XCTAssertEqual(after.state, .queued)
        XCTAssertEqual([after.attempts], [0], "a retry starts a fresh count")
        XCTAssertNil(after.lastError)
        XCTAssertNil(after.retryAt)
        try store.queue.apply(.pause, to: id)
        XCTAssertThrowsError(try store.queue.apply(.pause, to: id)) {
            XCTAssertEqual($0 as? StoreError, .cannotChange(id: id, state: "paused", action: "paused"))
            XCTAssertEqual(($0 as? StoreError)?.errorDescription, "d\(id) is paused; it cannot be paused.")
        }
        try store.queue.apply(.cancel, to: id)
        XCTAssertEqual(try store.queue.download(id: id)?.state, .cancelled)
        XCTAssertThrowsError(try store.queue.apply(.cancel, to: 999)) { XCTAssertEqual($0 as? StoreError, .noSuchDownload(999)) }
    }

    func testMoveSwapsWithTheNeighbour() throws {
        let store = try QueueStore(path: dir.file("q.sqlite"))
        let ids = try ["a", "b", "c"].map { try store.queue.add(url: "http://h/\($0)", title: $0, destination: "/d/\($0)").id }
        XCTAssertTrue(try store.queue.move(id: ids[2], by: -1))
        XCTAssertEqual(try store.queue.downloads().map(\.title), ["a", "c", "b"])
        XCTAssertTrue(try store.queue.move(id: ids[0], by: 1))
        XCTAssertEqual(try store.queue.downloads().map(\.title), ["c", "a", "b"])
        XCTAssertFalse(try store.queue.move(id: ids[2], by: -1), "first stays first")
        XCTAssertFalse(try store.queue.move(id: ids[1], by: 1), "last stays last")
        XCTAssertEqual(try store.queue.downloads().map(\.title), ["c", "a", "b"])
    }
}
