import PodqTestSupport
import XCTest

/// A row's lines come out in the order things happened: started, resumed, completed.
final class DownloadEventOrderTests: CLITestCase {
    func testEachRowsLinesComeOutInTheOrderThingsHappened() async throws {
        let out = dir.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let size: Int64 = 1_300_000
        // Partials that a quick resume finishes within one coalescing window of the observers (over
        // 1 MiB: a smaller partial with nothing to vouch for it starts again instead).
        for round in 0..<3 {
            var urls: [String] = []
            for i in 1...6 {
                let seed = UInt64(round * 10 + i)
                let name = "r\(round)-\(i).mp3"
                _ = FileManager.default.createFile(
                    atPath: out + "/" + name + ".part",
                    contents: Data(PatternSource(seed: seed, length: size).bytes(count: 1_200_000)))
                urls.append(server.dataURL(size: size, seed: seed, name: name).absoluteString)
            }
            let (exit, stdout, err) = try await cli.run(["download", "--jobs", "3", "--per-host", "3", "--download-dir", out] + urls)
            XCTAssertEqual(exit.code, 0, stdout + err)
            let lines = stdout.split(separator: "\n").map(String.init)
            for id in (round * 6 + 1)...(round * 6 + 6) {
                let mine = lines.filter { $0.contains("d\(id) ") }.map { String($0.prefix(9)).trimmingCharacters(in: .whitespaces) }
                XCTAssertEqual(mine, ["started", "resumed", "completed"], "row d\(id): \(lines.filter { $0.contains("d\(id) ") })")
            }
            for i in 1...6 {
                XCTAssertEqual(FileHash.sha256(path: out + "/r\(round)-\(i).mp3"), PatternSource(seed: UInt64(round * 10 + i), length: size).sha256)
            }
        }
    }
}
