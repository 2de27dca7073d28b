import ArgumentParser
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqSession
import PodqUI

/// `podq verify [<podcast>|<id>…] [--json]`: re-hashes completed files against the checksum recorded
/// when each was downloaded (issue 18, point 2).
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check downloaded files against the checksums recorded when they were downloaded.",
        discussion: """
            Each completed download's file is read again and hashed with the algorithm of its recorded \
            checksum (xxh3 or sha256, the config's `checksum`): `ok`, `changed` (the bytes differ: bit rot, \
            a bad copy, a tag editor), `missing` or `unreadable`. Files completed before podq recorded \
            checksums are listed as `not-recorded`. Nothing is changed or deleted. A number is a download \
            id (`podq queue`); anything else names a podcast (its title or feed URL). With none, every \
            completed download is checked. Exits with 1 when a file is changed, missing or unreadable.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print the results as JSON (an array of {id, title, path, result, expected, found}).")
    var json = false

    @Argument(
        help: "Downloads (d7, or a bare 7; e12: an episode's), or podcasts (p3, a title or a feed URL); default: every completed download.",
        completion: PodcastCompletion.podcasts)
    var items: [String] = []

    func run() async throws {
        let context = try QueueContext.open(global)
        let rows = try await select(context.store)
        var results: [(DownloadRecord, FileCheck)] = []
        let progress = VerifyProgress(
            files: rows.count, bytes: rows.reduce(0) { $0 + max(0, $1.bytesReceived) },
            live: !json && isatty(STDERR_FILENO) == 1)
        var folders: [String: DownloadFolder?] = [:]
        for row in rows {
            let check: FileCheck
            if !FileManager.default.fileExists(atPath: row.folderPath) {
                // An unmounted share: its files are missing, and podq does not create the folder.
                check = row.checksum == nil ? .notRecorded : .missing
            } else if let folder = folders[row.folderPath]
                ?? {
                    let f = try? DownloadFolder(path: row.folderPath); folders[row.folderPath] = f; return f
                }()
            {
                check = FileCheck.check(row, in: folder) { progress.add(bytes: $0) }
            } else {
                check = .unreadable("the download folder \(row.folderPath) cannot be opened")
            }
            progress.finishedFile()
            results.append((row, check))
            if !json { Console.out(Self.line(row, check)) }
            if check.isProblem {
                context.log.warning("verify: \(check.word)", metadata: ["id": "\(row.id)", "file": "\(row.destination)"])
            }
        }
        progress.end()
        let problems = results.filter { $0.1.isProblem }.count
        if json {
            Console.out(Self.json(results))
        } else {
            var counts: [String: Int] = [:]
            for (_, check) in results { counts[check.word, default: 0] += 1 }
            let parts = ["ok", "changed", "missing", "unreadable", "not-recorded"].compactMap { word in counts[word].map { "\($0) \(word)" } }
            Console.out("\(results.count) file\(results.count == 1 ? "" : "s") checked" + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", ")))
        }
        if problems > 0 { throw ExitCode(ExitCodes.failure) }
    }

    /// The completed downloads the arguments name: ids, podcasts, or all.
    private func select(_ store: QueueStore) async throws -> [DownloadRecord] {
        let completed = try await store.queue.downloads().filter { $0.state == .completed }
        guard !items.isEmpty else { return completed }
        var wanted: Set<Int64> = []
        for item in items {
            if let reference = ItemReference(item), reference.kind != .podcast {
                let id = try await IdArguments.download(reference, in: store)
                guard let row = try await store.queue.download(id: id) else { throw CommandError(StoreError.noSuchDownload(id)) }
                guard row.state == .completed else {
                    throw CommandError("download \(ItemKind.download.label(id)) is \(row.state.rawValue), not completed: there is no file to verify yet")
                }
                wanted.insert(id)
            } else {
                let podcast = try await IdArguments.podcast(item, in: store)
                for listing in try await store.library.episodes(podcastId: podcast.id) {
                    if let id = listing.episode.downloadId { wanted.insert(id) }
                }
            }
        }
        return completed.filter { wanted.contains($0.id) }
    }

    static func line(_ row: DownloadRecord, _ check: FileCheck) -> String {
        let head = "\(check.word.padded(to: 12)) \(ItemKind.download.label(row.id)) \(row.title)"
        switch check {
        case .ok, .notRecorded: return head
        case .changed: return head + ": \(row.destination) differs from the file podq downloaded. \(Self.again(row))"
        case .missing: return head + ": \(row.destination) is gone. \(Self.again(row))"
        case .unreadable(let why): return head + ": \(why)"
        }
    }

    /// The next step for a file that changed or went: fetch it again in its place (a feed episode by its
    /// episode's id, a URL's download by its own).
    static func again(_ row: DownloadRecord) -> String {
        let id = row.episodeId.map { ItemKind.episode.label($0) } ?? ItemKind.download.label(row.id)
        return "To fetch the publisher's file again in its place: podq queue add --replace \(id) && podq download"
    }

    static func json(_ results: [(DownloadRecord, FileCheck)]) -> String {
        struct Item: Encodable {
            let id: Int64, title: String, path: String, result: String
            let expected: String?, found: String?, reason: String?
            enum Keys: String, CodingKey { case id, title, path, result, expected, found, reason }
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: Keys.self)
                try c.encode(id, forKey: .id)
                try c.encode(title, forKey: .title)
                try c.encode(path, forKey: .path)
                try c.encode(result, forKey: .result)
                try c.encode(expected, forKey: .expected)
                try c.encode(found, forKey: .found)
                try c.encode(reason, forKey: .reason)
            }
        }
        let items = results.map { row, check -> Item in
            var found: String?, reason: String?
            switch check {
            case .changed(_, let now): found = now
            case .unreadable(let why): reason = SafeText.clean(why)
            default: break
            }
            return Item(id: row.id, title: row.title, path: row.destination, result: check.word, expected: row.checksum, found: found, reason: reason)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(items)) ?? Data("[]".utf8), as: UTF8.self)
    }
}

/// The progress line of a long `podq verify` on a terminal (standard error), redrawn at most ten
/// times a second: files and bytes done, and a bar.
final class VerifyProgress {
    private let files: Int
    private let bytes: Int64
    private let live: Bool
    private var doneFiles = 0
    private var doneBytes: Int64 = 0
    private var lastDraw = Date.distantPast
    private var drawn = false

    init(files: Int, bytes: Int64, live: Bool) {
        self.files = files
        self.bytes = bytes
        self.live = live
    }

    func add(bytes count: Int) {
        doneBytes += Int64(count)
        draw()
    }

    func finishedFile() {
        doneFiles += 1
        draw()
    }

    private func draw() {
        guard live, Date().timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = Date()
        let fraction = bytes > 0 ? min(1, Double(doneBytes) / Double(bytes)) : Double(doneFiles) / Double(max(1, files))
        let width = 30
        let filled = Int.clamped(fraction * Double(width), .towardZero, in: 0...width)
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        Console.rawError(
            "\r\u{1B}[2Kverifying \(doneFiles)/\(files) files, \(Format.bytes(doneBytes)) of \(Format.bytes(bytes)) [\(bar)] \(Int.clamped(fraction * 100, .towardZero, in: 0...100))%"
        )
        drawn = true
    }

    /// Erases the line.
    func end() {
        if drawn { Console.rawError("\r\u{1B}[2K") }
    }
}
